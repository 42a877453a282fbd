// N workers pulling from one list: at most `concurrency` files in flight, and an abort stops
// handing out new work while in-flight items wind down through their own signal.
export async function runQueue<T>(items: readonly T[], concurrency: number, signal: AbortSignal, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (!signal.aborted && next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}
