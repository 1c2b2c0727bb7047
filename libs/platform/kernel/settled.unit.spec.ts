import { settled } from './settled';

describe('settled', () => {
  it('gives the work\'s value as a resolved promise, and its throw as a rejected one rather than throwing', async () => {
    await expect(settled(() => 42)).resolves.toBe(42);
    const failure = new Error('no such table');
    let promise: Promise<never> | undefined;
    expect(() => (promise = settled(() => { throw failure; }))).not.toThrow();
    await expect(promise).rejects.toBe(failure);
  });
});
