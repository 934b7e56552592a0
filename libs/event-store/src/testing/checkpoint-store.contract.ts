import type { CheckpointStore } from '../event-store.port';

/** Behaviour every CheckpointStore adapter must have; `open` opens the same storage again (as after a restart). */
export function checkpointStoreContract(
  name: string,
  open: () => Promise<{ store: CheckpointStore; reopen: () => Promise<CheckpointStore>; close: (s: CheckpointStore) => Promise<void> }>,
): void {
  describe(`CheckpointStore contract: ${name}`, () => {
    it('stores named positions that survive reopening, 0 for an unknown name', async () => {
      const { store, reopen, close } = await open();
      expect(await store.load('x')).toBe(0);
      await store.save('x', 7);
      await store.save('x', 9);
      await store.save('y', 1);
      await close(store);
      const again = await reopen();
      expect(await again.load('x')).toBe(9);
      expect(await again.list()).toEqual({ x: 9, y: 1 });
      await close(again);
    });

    it('never moves a position backwards (a late or replayed save)', async () => {
      const { store, close } = await open();
      await store.save('late', 9);
      await store.save('late', 4);
      expect(await store.load('late')).toBe(9);
      await close(store);
    });
  });
}
