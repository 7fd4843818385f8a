// The version is read where the User-Agent needs it (the lowest layer); the CLI shows the same.
export { toolVersion } from '../http/user-agent.js';
