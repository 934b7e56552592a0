module.exports = require('./test-temp-dir').teardown;
