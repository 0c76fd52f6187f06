// Test helper: zip archives built in memory (APPNOTE 4.3), deflated or stored, with the faults a test needs: wrong sizes or CRC,
// encryption and method flags, data descriptors, a zip64 locator. Its CRC-32 is zlib's, not the reader's own.
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntryInput {
  name: string;
  data: Buffer | string;
  /** 8 (deflate, the default) or 0 (stored); any other number is written as given with the data stored. */
  method?: number;
  /** General purpose flags; bit 11 (UTF-8 name) is always set. */
  flags?: number;
  /** Sizes in a data descriptor after the data (bit 3), zeros in the local header. */
  dataDescriptor?: boolean;
  /** The size the directory claims, when it should lie. */
  claimedSize?: number;
  /** The CRC-32 the directory claims, when it should lie. */
  claimedCrc?: number;
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const DOS_DATE = (2025 - 1980) * 512 + 5 * 32 + 2;

/** A zip archive of `entries`, in order; `zip64Locator` puts a zip64 end locator before the end record. */
export function zipArchive(entries: ZipEntryInput[], options: { zip64Locator?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.from(entry.data);
    const method = entry.method ?? 8;
    const packed = method === 8 ? deflateRawSync(data) : data;
    const flags = (entry.flags ?? 0) | 0x0800 | (entry.dataDescriptor ? 0x0008 : 0);
    const crc = entry.claimedCrc ?? crc32(data);
    const size = entry.claimedSize ?? data.length;
    const name = Buffer.from(entry.name, 'utf8');
    const sizes = [u32(crc), u32(packed.length), u32(size)];
    const local = Buffer.concat([
      u32(0x04034b50), u16(20), u16(flags), u16(method), u16(0), u16(DOS_DATE),
      ...(entry.dataDescriptor ? [u32(0), u32(0), u32(0)] : sizes), u16(name.length), u16(0), name,
    ]);
    const descriptor = entry.dataDescriptor ? Buffer.concat([u32(0x08074b50), ...sizes]) : Buffer.alloc(0);
    central.push(Buffer.concat([
      u32(0x02014b50), u16(20), u16(20), u16(flags), u16(method), u16(0), u16(DOS_DATE), ...sizes,
      u16(name.length), u16(0), u16(0), u16(0), u16(0), u32(0), u32(offset), name,
    ]));
    parts.push(local, packed, descriptor);
    offset += local.length + packed.length + descriptor.length;
  }
  const directory = Buffer.concat(central);
  const locator = options.zip64Locator ? Buffer.concat([u32(0x07064b50), u32(0), u32(0), u32(0), u32(1)]) : Buffer.alloc(0);
  const end = Buffer.concat([u32(0x06054b50), u16(0), u16(0), u16(entries.length), u16(entries.length), u32(directory.length), u32(offset), u16(0)]);
  return Buffer.concat([...parts, directory, locator, end]);
}
