// A zip written entry by entry straight to its file (deflated, zip64 when it needs it), so an
// export of 200,000 generated records never sits in memory: yazl queues every entry it is given.
import { closeSync, openSync, writeSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

export function zipWriter(path) {
  const fd = openSync(path, 'w');
  const central = [];
  let offset = 0;
  const write = (buffer) => {
    writeSync(fd, buffer);
    offset += buffer.length;
  };
  return {
    add(name, data) {
      const nameBytes = Buffer.from(name);
      const compressed = deflateRawSync(data);
      const header = Buffer.alloc(30);
      header.writeUInt32LE(0x04034b50, 0);
      header.writeUInt16LE(20, 4);
      header.writeUInt16LE(0x0800, 6); // UTF-8 names
      header.writeUInt16LE(8, 8);
      header.writeUInt32LE(crc32(data), 14);
      header.writeUInt32LE(compressed.length, 18);
      header.writeUInt32LE(data.length, 22);
      header.writeUInt16LE(nameBytes.length, 26);
      central.push({ nameBytes, crc: crc32(data), compressed: compressed.length, size: data.length, offset });
      write(header);
      write(nameBytes);
      write(compressed);
    },
    end() {
      const start = offset;
      for (const e of central) {
        const zip64 = e.offset > 0xfffffffe;
        const extra = zip64 ? Buffer.alloc(12) : Buffer.alloc(0);
        if (zip64) {
          extra.writeUInt16LE(0x0001, 0);
          extra.writeUInt16LE(8, 2);
          extra.writeBigUInt64LE(BigInt(e.offset), 4);
        }
        const record = Buffer.alloc(46);
        record.writeUInt32LE(0x02014b50, 0);
        record.writeUInt16LE(45, 4);
        record.writeUInt16LE(zip64 ? 45 : 20, 6);
        record.writeUInt16LE(0x0800, 8);
        record.writeUInt16LE(8, 10);
        record.writeUInt32LE(e.crc, 16);
        record.writeUInt32LE(e.compressed, 20);
        record.writeUInt32LE(e.size, 24);
        record.writeUInt16LE(e.nameBytes.length, 28);
        record.writeUInt16LE(extra.length, 30);
        record.writeUInt32LE(zip64 ? 0xffffffff : e.offset, 42);
        write(record);
        write(e.nameBytes);
        write(extra);
      }
      const size = offset - start;
      const many = central.length > 0xfffe || start > 0xfffffffe;
      if (many) {
        const end64 = Buffer.alloc(56);
        end64.writeUInt32LE(0x06064b50, 0);
        end64.writeBigUInt64LE(44n, 4);
        end64.writeUInt16LE(45, 12);
        end64.writeUInt16LE(45, 14);
        end64.writeBigUInt64LE(BigInt(central.length), 24);
        end64.writeBigUInt64LE(BigInt(central.length), 32);
        end64.writeBigUInt64LE(BigInt(size), 40);
        end64.writeBigUInt64LE(BigInt(start), 48);
        const locator = Buffer.alloc(20);
        locator.writeUInt32LE(0x07064b50, 0);
        locator.writeBigUInt64LE(BigInt(offset), 8);
        locator.writeUInt32LE(1, 16);
        write(end64);
        write(locator);
      }
      const end = Buffer.alloc(22);
      end.writeUInt32LE(0x06054b50, 0);
      end.writeUInt16LE(many ? 0xffff : central.length, 8);
      end.writeUInt16LE(many ? 0xffff : central.length, 10);
      end.writeUInt32LE(many ? 0xffffffff : size, 12);
      end.writeUInt32LE(many ? 0xffffffff : start, 16);
      write(end);
      closeSync(fd);
    },
  };
}
