// Every background job the service runs (see server/jobs.ts).
import type { JobDefinition } from '../server/jobs.js';
import { recurringTransactionsJob } from './recurring-transactions.js';

export const jobs: JobDefinition<any>[] = [recurringTransactionsJob];
