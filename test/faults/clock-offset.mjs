// `node --import ./test/faults/clock-offset.mjs`: this process's wall clock reads
// FAULT_CLOCK_OFFSET_MS off (e.g. ±1 h), as if the application host's clock were wrong.
// Date.now(), new Date() and Date() move; explicit dates and performance.now() do not.
const offset = Number(process.env.FAULT_CLOCK_OFFSET_MS ?? 0);
if (Number.isFinite(offset) && offset !== 0) {
  const RealDate = globalThis.Date;
  const now = () => RealDate.now() + offset;
  globalThis.Date = new Proxy(RealDate, {
    construct(target, args, newTarget) {
      return Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget);
    },
    apply() {
      return new RealDate(now()).toString();
    },
    get(target, property, receiver) {
      return property === "now" ? now : Reflect.get(target, property, receiver);
    },
  });
  process.stderr.write(`[clock] pid ${process.pid}: Date reads ${offset > 0 ? "+" : ""}${offset} ms off\n`);
}
