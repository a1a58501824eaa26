// Settings every service the tests start takes, in-process or as a child process.
// Passwords are hashed with argon2id's cheapest parameters: at production's (64 MiB, 3 passes,
// 4 lanes) each registration and login costs ~0.1 s of CPU, and the suite makes thousands.
// test/config.test.ts checks that production's defaults are the strong ones.
export const TEST_ENV: Readonly<Record<string, string>> = Object.freeze({
  PASSWORD_HASH_MEMORY_KIB: '1024',
  PASSWORD_HASH_ITERATIONS: '1',
  PASSWORD_HASH_PARALLELISM: '1',
  // one release: reading the code for its digest (~75 ms) would add to every test process's
  // start; test/process-fleet.test.ts and test/unit/code-fingerprint.test.ts test the digest
  BUILD_ID: 'test',
});
