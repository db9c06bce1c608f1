/**
 * An @mcap/core IWritable over a streaming sink of platform/files (writeAtomicStream): McapWriter
 * writes a record (or a whole chunk) at a time and asks for the byte position to build its
 * indexes. Used wherever Witness writes an MCAP file (the audit export, the rosbag benchmark's
 * synthetic bag), so the file is written atomically like any other.
 */
import type { IWritable } from '@mcap/core';
import type { ByteSink } from '../../../platform/files.js';

export class SinkWritable implements IWritable {
  constructor(private readonly sink: ByteSink) {}
  async write(buffer: Uint8Array): Promise<void> {
    await this.sink.write(buffer);
  }
  position(): bigint {
    return BigInt(this.sink.bytes);
  }
}
