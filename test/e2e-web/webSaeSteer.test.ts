// Issue 31's SAE features and steering in the web worker extension host: the very tests the Node
// host runs (../e2e/saeFeatures.test.ts, ../e2e/steerCompare.test.ts), registered again in this
// suite, which the runner starts with "remote.extensionKind" web (settings.json). There the compute
// worker asks the host for the SAE's and checkpoint's files, and exports go through workspace.fs.
// Run: node scripts/run-e2e.mjs --settings test/e2e-web/settings.json --files out/test/e2e-web/webSaeSteer.test.js
import '../e2e/saeFeatures.test';
import '../e2e/steerCompare.test';
