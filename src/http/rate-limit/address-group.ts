import { isIPv6 } from 'node:net';

// What a per-address limit counts as one client. An IPv6 subscriber (a home line, a phone, a
// rented server) is given a /64 at least and may use any of its 2^64 addresses: counted per
// address, rotating through them evades any limit. So an IPv6 address counts by its /64; an
// IPv4 address, and an IPv4-mapped IPv6 one, by itself.

/** `2001:db8:1:2::/64` for any address in that block, `192.0.2.7` for `192.0.2.7` or `::ffff:192.0.2.7`. */
export function addressGroup(address: string): string {
  const plain = address.split('%')[0]!;
  if (!isIPv6(plain)) return address;
  const groups = ipv6Groups(plain);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6]!, groups[7]!];
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 as two groups). */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((piece) => {
          if (!piece.includes('.')) return [Number.parseInt(piece, 16)];
          const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const gap = address.indexOf('::');
  if (gap < 0) return parse(address);
  const left = parse(address.slice(0, gap));
  const right = parse(address.slice(gap + 2));
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
