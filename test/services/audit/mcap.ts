/** Reading an MCAP file back in tests: @mcap/core's indexed reader over a file handle. */
import type { FileHandle } from 'node:fs/promises';
import { McapIndexedReader } from '@mcap/core';

export async function mcapReader(fh: FileHandle): Promise<McapIndexedReader> {
  const size = (await fh.stat()).size;
  return McapIndexedReader.Initialize({
    readable: {
      size: () => Promise.resolve(BigInt(size)),
      read: async (offset: bigint, length: bigint) => {
        const b = new Uint8Array(Number(length));
        await fh.read(b, 0, Number(length), Number(offset));
        return b;
      },
    },
  });
}
