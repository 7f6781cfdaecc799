import { apkOrder } from './orders/apk.js';
import { composerOrder } from './orders/composer.js';
import { dpkgOrder } from './orders/dpkg.js';
import { mavenOrder } from './orders/maven.js';
import { nugetOrder } from './orders/nuget.js';
import type { VersionOrder } from './orders/order.js';
import { pep440Order } from './orders/pep440.js';
import { pubOrder } from './orders/pub.js';
import { rubyGemsOrder } from './orders/rubygems.js';
import { semverOrder } from './orders/semver.js';

export type { VersionOrder } from './orders/order.js';

/** Each OSV base ecosystem this platform orders, with the order its own tools use. */
const ORDERS: Record<string, VersionOrder> = {
  npm: semverOrder,
  'crates.io': semverOrder,
  Hex: semverOrder,
  Go: semverOrder,
  Pub: pubOrder,
  PyPI: pep440Order,
  Maven: mavenOrder,
  NuGet: nugetOrder,
  RubyGems: rubyGemsOrder,
  Packagist: composerOrder,
  Debian: dpkgOrder,
  Ubuntu: dpkgOrder,
  Alpine: apkOrder,
};

/** The version order of an OSV ecosystem ("Debian:11" uses Debian's), or null when none is known. */
export function orderOf(ecosystem: string): VersionOrder | null {
  const base = ecosystem.split(':', 1)[0]!;
  return Object.hasOwn(ORDERS, base) ? ORDERS[base]! : null;
}
