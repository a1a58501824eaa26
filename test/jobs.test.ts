// The job queue on the test's database (embedded or PostgreSQL): queued jobs run, once each;
// jobs marked resumeAtStart run once as the runner starts; a sent job wakes its idle worker.
import t from 'tap';
import { JobRunner, type JobDefinition } from '../server/jobs.js';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);

t.test('a queued job runs on the worker', { timeout: 60_000 }, async (t) => {
  const seen: number[] = [];
  const counting: JobDefinition<{ n: number }> = { name: 'test-counting', run: async (_ctx, data) => void seen.push(data.n) };
  const runner = new JobRunner(api.connectionString, [counting], { db: api.db, services: api.app.services, log: api.app.log }, 0.5);
  await runner.start();
  for (const n of [1, 2, 3]) await runner.send('test-counting', { n });
  const deadline = Date.now() + 30_000;
  while (seen.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  await runner.stop(); // before the test's database goes away
  t.same([...seen].sort(), [1, 2, 3], 'each job ran once');
});

t.test('a job that drains left-over work runs once as the runner starts, unasked', { timeout: 60_000 }, async (t) => {
  const runs: string[] = [];
  const draining: JobDefinition = { name: 'test-draining', resumeAtStart: true, run: async () => void runs.push('draining') };
  const idle: JobDefinition = { name: 'test-idle', run: async () => void runs.push('idle') };
  const runner = new JobRunner(api.connectionString, [draining, idle], { db: api.db, services: api.app.services, log: api.app.log }, 0.5);
  await runner.start();
  const deadline = Date.now() + 30_000;
  while (runs.length < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  await runner.send('test-draining'); // then a nudge as usual, to know the idle one had its chance
  while (runs.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  await runner.stop();
  t.same(runs, ['draining', 'draining'], 'the draining job ran at start; the other did not');
});

t.test('a sent job wakes an idle worker rather than waiting for its next poll', { timeout: 60_000 }, async (t) => {
  const seen: number[] = [];
  const counting: JobDefinition<{ n: number }> = { name: 'test-woken', run: async (_ctx, data) => void seen.push(data.n) };
  // a poll every 10 minutes: only the wake-up can run the job within the test
  const runner = new JobRunner(api.connectionString, [counting], { db: api.db, services: api.app.services, log: api.app.log }, 600);
  await runner.start();
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the worker's first (empty) fetch is over: it sleeps
  await runner.send('test-woken', { n: 1 });
  const deadline = Date.now() + 30_000;
  while (seen.length < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  await runner.stop();
  t.same(seen, [1], 'the job ran without a poll');
});
