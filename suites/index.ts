import { probeService } from './probe-setup.js';
import './checkout.suite.js';
import './client.suite.js';
import './format.suite.js';
import './http.suite.js';
import './observe.suite.js';
import './upload.suite.js';

// The suite files, one per area, loaded by name rather than found on disk: the single executable
// carries them in its bundle, where there is no folder to list (a test holds this list to suites/).

export { runSuites, type TestOutcome } from './engine.js';
export { probeService };
