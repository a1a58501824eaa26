// Answers pending assistant replies. Nudged after a question is stored, and every minute for
// replies whose nudge was lost (or whose worker died mid-way: see claimReply).
//
// A run claims replies one at a time (FOR UPDATE SKIP LOCKED, status -> processing), so two
// workers never answer one reply. Answering (server/assistant-reply.ts): the language model
// outside any database transaction, or the local engine when none is configured or the model
// fails; the reply records which engine answered. An unexpected failure ends in a `failed`
// reply with a clear error, never in a reply left pending.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { claimReply } from '../db/chats.js';
import { ANSWER_CHAT_MESSAGE_JOB } from '../db/job-names.js';
import type { Database } from '../db/schema.js';
import { answerReply } from '../server/assistant-reply.js';
import type { JobDefinition } from '../server/jobs.js';
import type { AppServices } from '../server/services.js';

/** Replies answered per run at most (the next nudge or the cron continues). */
const PER_RUN = 20;

export const answerChatMessageJob: JobDefinition = {
  name: ANSWER_CHAT_MESSAGE_JOB,
  cron: '* * * * *',
  async run({ db, services, log }) {
    const answered = await answerPendingReplies(db, services, log);
    if (answered > 0) log.info({ answered }, 'assistant replies answered');
  },
};

/** Answers claimable replies one by one; returns how many were finished. */
export async function answerPendingReplies(db: Kysely<Database>, services: AppServices, log: FastifyBaseLogger): Promise<number> {
  let count = 0;
  for (; count < PER_RUN; count++) {
    const reply = await claimReply(db, services.now());
    if (!reply) break;
    await answerReply(db, services, log, reply);
  }
  return count;
}

