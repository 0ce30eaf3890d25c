import { Readable } from 'node:stream';
import { constants, createBrotliDecompress, createGunzip, createInflate, type BrotliDecompress, type Gunzip, type Inflate } from 'node:zlib';

/** A body read under two caps: bytes on the wire and bytes after decompression. */
export interface CappedBody {
  readonly bytes: Buffer;
  /** Bytes received from the network (compressed, when the server compressed). */
  readonly wireBytes: number;
  /** A cap stopped the read: the body goes on past `bytes`. */
  readonly truncated: boolean;
  readonly stoppedBy?: 'wire-cap' | 'decoded-cap';
}

export interface BodyCaps {
  readonly maxWireBytes: number;
  readonly maxDecodedBytes: number;
}

/**
 * Reads a response body, counting the compressed bytes as they arrive and the decoded bytes as
 * they come out of the decompressor; whichever cap is reached first stops the read, so neither a
 * huge download nor a decompression bomb can fill memory. Unknown encodings are an error.
 */
export async function readCappedBody(body: AsyncIterable<Uint8Array>, contentEncoding: string | undefined, caps: BodyCaps): Promise<CappedBody> {
  let wireBytes = 0;
  let wireCut = false;
  async function* wire(): AsyncGenerator<Buffer> {
    for await (const chunk of body) {
      const buffer = Buffer.from(chunk);
      const room = caps.maxWireBytes - wireBytes;
      if (buffer.length > room) {
        if (room > 0) yield buffer.subarray(0, room);
        wireBytes += Math.max(room, 0);
        wireCut = true;
        return;
      }
      wireBytes += buffer.length;
      yield buffer;
    }
  }
  const decoder = createDecoder(contentEncoding);
  const source = Readable.from(wire());
  const decoded: AsyncIterable<Buffer> = decoder === undefined ? source : source.pipe(decoder);
  const parts: Buffer[] = [];
  let size = 0;
  let decodedCut = false;
  try {
    for await (const chunk of decoded) {
      const room = caps.maxDecodedBytes - size;
      if (chunk.length > room) {
        parts.push(chunk.subarray(0, room));
        size += room;
        decodedCut = true;
        break;
      }
      parts.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    // A body cut at the wire cap ends mid-stream: keep what was decoded.
    if (!wireCut) throw error;
  } finally {
    source.destroy();
    decoder?.destroy();
  }
  const stoppedBy = decodedCut ? 'decoded-cap' : wireCut ? 'wire-cap' : undefined;
  return { bytes: Buffer.concat(parts), wireBytes, truncated: stoppedBy !== undefined, ...(stoppedBy === undefined ? {} : { stoppedBy }) };
}

function createDecoder(contentEncoding: string | undefined): Gunzip | Inflate | BrotliDecompress | undefined {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  const flush = { finishFlush: constants.Z_SYNC_FLUSH };
  switch (encoding) {
    case '':
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return createGunzip(flush);
    case 'deflate':
      return createInflate(flush);
    case 'br':
      return createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH });
    default:
      throw new Error(`the server used a content encoding web_fetch does not read (${encoding})`);
  }
}
