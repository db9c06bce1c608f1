/**
 * An @mcap/core IWritable over an open file handle: McapWriter writes a record (or a whole chunk) at
 * a time and asks for the byte position to build its indexes. Used wherever Witness writes an MCAP
 * bag to disk directly (the rosbag benchmark's synthetic bag, the tests' recorded bags).
 */
import type { FileHandle } from 'node:fs/promises';
import type { IWritable } from '@mcap/core';

export class McapFileWritable implements IWritable {
  private pos = 0n;
  constructor(private readonly fh: FileHandle) {}
  position(): bigint {
    return this.pos;
  }
  async write(buffer: Uint8Array): Promise<void> {
    await this.fh.write(buffer);
    this.pos += BigInt(buffer.byteLength);
  }
}
