import { closeAllTracked } from './suite-resources';

// Runs after each test file's own hooks: whatever the file started and did not close
// (a failed beforeAll, a forgotten afterAll) is closed here, so Jest can exit.
afterAll(closeAllTracked, 60_000);
