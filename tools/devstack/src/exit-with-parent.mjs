// Preloaded (`node --import`) into child processes whose code is not ours, such as the portal's
// `next start`: when the supervisor that started them disappears (killed outright), they stop
// too, like every other service of the stack.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
}, 1000).unref();
