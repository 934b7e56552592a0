module.exports = require('./test-temp-dir').setup;
