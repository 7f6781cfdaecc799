// The vendor table's data: product name -> the NVD's (vendor, product) pairs and part, for component
// CPEs that name no vendor. Every entry comes from a build system's own mapping and names it:
//   buildroot          github.com/buildroot/buildroot e991fa071605a78c17adba2ed26e07c3b8c95583: a
//                      package's <PKG>_CPE_ID_VENDOR / _PRODUCT / _PREFIX, or _CPE_ID_VALID = YES,
//                      which declares its default (<name>_project:<name>, part a) right
//   openembedded-core  github.com/openembedded/openembedded-core 35a2c6ed7987763dadbe45ad86095e1aee1c7314:
//                      a recipe's CVE_PRODUCT, where it names the vendor (vendor:product)
// Kept as a module rather than JSON so that it loads the same way in src/, the tests and dist/.
// To add an entry: cite the build system's line; never add a pair no build system states.

export interface VendorTableRow {
  part: 'a' | 'o' | 'h';
  /** vendor:product, as the NVD writes them. */
  cpes: string[];
  sources: string[];
}

export const VENDOR_TABLE_ROWS: Record<string, VendorTableRow> = {
  'alsa-lib': {
    part: 'a',
    cpes: ['alsa-project:alsa-lib'],
    sources: ['buildroot package/alsa-lib/alsa-lib.mk: ALSA_LIB_CPE_ID_VENDOR = alsa-project'],
  },
  avahi: {
    part: 'a',
    cpes: ['avahi:avahi'],
    sources: ['buildroot package/avahi/avahi.mk: AVAHI_CPE_ID_VENDOR = avahi'],
  },
  bash: {
    part: 'a',
    cpes: ['gnu:bash'],
    sources: ['buildroot package/bash/bash.mk: BASH_CPE_ID_VENDOR = gnu'],
  },
  bind: {
    part: 'a',
    cpes: ['isc:bind'],
    sources: ['buildroot package/bind/bind.mk: BIND_CPE_ID_VENDOR = isc'],
  },
  bird: {
    part: 'a',
    cpes: ['nic:bird'],
    sources: ['buildroot package/bird/bird.mk: BIRD_CPE_ID_VENDOR = nic'],
  },
  bluez: {
    part: 'a',
    cpes: ['bluez:bluez'],
    sources: [
      'buildroot package/bluez5_utils/bluez5_utils.mk: BLUEZ5_UTILS_CPE_ID_VENDOR = bluez; BLUEZ5_UTILS_CPE_ID_PRODUCT = bluez',
      'openembedded-core meta/recipes-connectivity/bluez5/bluez5.inc: CVE_PRODUCT = "bluez"',
    ],
  },
  bluez5: {
    part: 'a',
    cpes: ['bluez:bluez'],
    sources: [
      'buildroot package/bluez5_utils/bluez5_utils.mk: BLUEZ5_UTILS_CPE_ID_VENDOR = bluez; BLUEZ5_UTILS_CPE_ID_PRODUCT = bluez',
      'openembedded-core meta/recipes-connectivity/bluez5/bluez5.inc: CVE_PRODUCT = "bluez"',
    ],
  },
  boost: {
    part: 'a',
    cpes: ['boost:boost'],
    sources: ['openembedded-core meta/recipes-support/boost/boost.inc: CVE_PRODUCT = "boost:boost"'],
  },
  busybox: {
    part: 'a',
    cpes: ['busybox:busybox'],
    sources: ['buildroot package/busybox/busybox.mk: BUSYBOX_CPE_ID_VENDOR = busybox'],
  },
  bzip2: {
    part: 'a',
    cpes: ['bzip:bzip2', 'bzip2:bzip2'],
    sources: [
      'buildroot package/bzip2/bzip2.mk: BZIP2_CPE_ID_VENDOR = bzip',
      'openembedded-core meta/recipes-extended/bzip2/bzip2_1.0.8.bb: CVE_PRODUCT = "bzip:bzip2 bzip2:bzip2"',
    ],
  },
  'c-ares': {
    part: 'a',
    cpes: ['c-ares:c-ares'],
    sources: ['buildroot package/c-ares/c-ares.mk: C_ARES_CPE_ID_VENDOR = c-ares'],
  },
  cairo: {
    part: 'a',
    cpes: ['cairographics:cairo'],
    sources: ['buildroot package/cairo/cairo.mk: CAIRO_CPE_ID_VENDOR = cairographics'],
  },
  chrony: {
    part: 'a',
    cpes: ['tuxfamily:chrony'],
    sources: ['buildroot package/chrony/chrony.mk: CHRONY_CPE_ID_VENDOR = tuxfamily'],
  },
  'cifs-utils': {
    part: 'a',
    cpes: ['samba:cifs-utils'],
    sources: ['buildroot package/cifs-utils/cifs-utils.mk: CIFS_UTILS_CPE_ID_VENDOR = samba'],
  },
  cjson: {
    part: 'a',
    cpes: ['davegamble:cjson'],
    sources: ['buildroot package/cjson/cjson.mk: CJSON_CPE_ID_VENDOR = davegamble'],
  },
  'conntrack-tools': {
    part: 'a',
    cpes: ['netfilter:conntrack-tools'],
    sources: ['buildroot package/conntrack-tools/conntrack-tools.mk: CONNTRACK_TOOLS_CPE_ID_VENDOR = netfilter'],
  },
  coreutils: {
    part: 'a',
    cpes: ['gnu:coreutils'],
    sources: [
      'buildroot package/coreutils/coreutils.mk: COREUTILS_CPE_ID_VENDOR = gnu',
      'openembedded-core meta/recipes-core/coreutils/coreutils_9.11.bb: CVE_PRODUCT = "gnu:coreutils"',
    ],
  },
  cryptsetup: {
    part: 'a',
    cpes: ['cryptsetup_project:cryptsetup'],
    sources: ['buildroot package/cryptsetup/cryptsetup.mk: CRYPTSETUP_CPE_ID_VALID = YES'],
  },
  cups: {
    part: 'a',
    cpes: ['openprinting:cups'],
    sources: ['buildroot package/cups/cups.mk: CUPS_CPE_ID_VENDOR = openprinting'],
  },
  curl: {
    part: 'a',
    cpes: ['haxx:curl', 'haxx:libcurl'],
    sources: [
      'openembedded-core meta/recipes-support/curl/curl_8.21.0.bb: CVE_PRODUCT = "haxx:curl haxx:libcurl curl:curl curl:libcurl libcurl:libcurl daniel_stenberg:curl"',
    ],
  },
  dbus: {
    part: 'a',
    cpes: ['freedesktop:dbus'],
    sources: ['buildroot package/dbus/dbus.mk: DBUS_CPE_ID_VENDOR = freedesktop'],
  },
  dhcp: {
    part: 'a',
    cpes: ['isc:dhcp'],
    sources: ['buildroot package/dhcp/dhcp.mk: DHCP_CPE_ID_VENDOR = isc'],
  },
  dhcpcd: {
    part: 'a',
    cpes: ['dhcpcd_project:dhcpcd'],
    sources: ['buildroot package/dhcpcd/dhcpcd.mk: DHCPCD_CPE_ID_VALID = YES'],
  },
  dnsmasq: {
    part: 'a',
    cpes: ['thekelleys:dnsmasq'],
    sources: ['buildroot package/dnsmasq/dnsmasq.mk: DNSMASQ_CPE_ID_VENDOR = thekelleys'],
  },
  dosfstools: {
    part: 'a',
    cpes: ['dosfstools_project:dosfstools'],
    sources: ['buildroot package/dosfstools/dosfstools.mk: DOSFSTOOLS_CPE_ID_VALID = YES'],
  },
  dropbear: {
    part: 'a',
    cpes: ['dropbear_ssh_project:dropbear_ssh'],
    sources: [
      'buildroot package/dropbear/dropbear.mk: DROPBEAR_CPE_ID_VENDOR = dropbear_ssh_project; DROPBEAR_CPE_ID_PRODUCT = dropbear_ssh',
      'openembedded-core meta/recipes-core/dropbear/dropbear_2026.94.bb: CVE_PRODUCT = "dropbear_ssh"',
    ],
  },
  dropbear_ssh: {
    part: 'a',
    cpes: ['dropbear_ssh_project:dropbear_ssh'],
    sources: [
      'buildroot package/dropbear/dropbear.mk: DROPBEAR_CPE_ID_VENDOR = dropbear_ssh_project; DROPBEAR_CPE_ID_PRODUCT = dropbear_ssh',
      'openembedded-core meta/recipes-core/dropbear/dropbear_2026.94.bb: CVE_PRODUCT = "dropbear_ssh"',
    ],
  },
  dtc: {
    part: 'a',
    cpes: ['dtc_project:dtc'],
    sources: ['buildroot package/dtc/dtc.mk: DTC_CPE_ID_VALID = YES'],
  },
  e2fsprogs: {
    part: 'a',
    cpes: ['e2fsprogs_project:e2fsprogs'],
    sources: ['buildroot package/e2fsprogs/e2fsprogs.mk: E2FSPROGS_CPE_ID_VALID = YES'],
  },
  ebtables: {
    part: 'a',
    cpes: ['netfilter:ebtables'],
    sources: ['buildroot package/ebtables/ebtables.mk: EBTABLES_CPE_ID_VENDOR = netfilter'],
  },
  elfutils: {
    part: 'a',
    cpes: ['elfutils_project:elfutils'],
    sources: ['buildroot package/elfutils/elfutils.mk: ELFUTILS_CPE_ID_VALID = YES'],
  },
  ethtool: {
    part: 'a',
    cpes: ['kernel:ethtool'],
    sources: ['buildroot package/ethtool/ethtool.mk: ETHTOOL_CPE_ID_VENDOR = kernel'],
  },
  expat: {
    part: 'a',
    cpes: ['libexpat_project:libexpat'],
    sources: ['buildroot package/expat/expat.mk: EXPAT_CPE_ID_VENDOR = libexpat_project; EXPAT_CPE_ID_PRODUCT = libexpat'],
  },
  'f2fs-tools': {
    part: 'a',
    cpes: ['f2fs-tools_project:f2fs-tools'],
    sources: ['buildroot package/f2fs-tools/f2fs-tools.mk: F2FS_TOOLS_CPE_ID_VALID = YES'],
  },
  ffmpeg: {
    part: 'a',
    cpes: ['ffmpeg:ffmpeg'],
    sources: ['buildroot package/ffmpeg/ffmpeg.mk: FFMPEG_CPE_ID_VENDOR = ffmpeg'],
  },
  file: {
    part: 'a',
    cpes: ['file_project:file'],
    sources: ['buildroot package/file/file.mk: FILE_CPE_ID_VALID = YES'],
  },
  freetype: {
    part: 'a',
    cpes: ['freetype:freetype'],
    sources: ['buildroot package/freetype/freetype.mk: FREETYPE_CPE_ID_VENDOR = freetype'],
  },
  frr: {
    part: 'a',
    cpes: ['frrouting:frrouting'],
    sources: ['buildroot package/frr/frr.mk: FRR_CPE_ID_VENDOR = frrouting; FRR_CPE_ID_PRODUCT = frrouting'],
  },
  frrouting: {
    part: 'a',
    cpes: ['frrouting:frrouting'],
    sources: ['buildroot package/frr/frr.mk: FRR_CPE_ID_VENDOR = frrouting; FRR_CPE_ID_PRODUCT = frrouting'],
  },
  gdb: {
    part: 'a',
    cpes: ['gnu:gdb'],
    sources: ['buildroot package/gdb/gdb.mk: GDB_CPE_ID_VENDOR = gnu'],
  },
  giflib: {
    part: 'a',
    cpes: ['giflib_project:giflib'],
    sources: ['buildroot package/giflib/giflib.mk: GIFLIB_CPE_ID_VALID = YES'],
  },
  git: {
    part: 'a',
    cpes: ['git-scm:git'],
    sources: ['openembedded-core meta/recipes-devtools/git/git_2.55.0.bb: CVE_PRODUCT = "git-scm:git"'],
  },
  glib: {
    part: 'a',
    cpes: ['gnome:glib'],
    sources: [
      'buildroot package/libglib2/libglib2-bootstrap/libglib2-bootstrap.mk: LIBGLIB2_BOOTSTRAP_CPE_ID_VENDOR = $(LIBGLIB2_CPE_ID_VENDOR); LIBGLIB2_BOOTSTRAP_CPE_ID_PRODUCT = $(LIBGLIB2_CPE_ID_PRODUCT); LIBGLIB2_CPE_ID_VENDOR = gnome; LIBGLIB2_CPE_ID_PRODUCT = glib',
    ],
  },
  glibc: {
    part: 'a',
    cpes: ['gnu:glibc'],
    sources: ['buildroot package/glibc/glibc.mk: GLIBC_CPE_ID_VENDOR = gnu'],
  },
  gmp: {
    part: 'a',
    cpes: ['gmplib:gmp'],
    sources: ['buildroot package/gmp/gmp.mk: GMP_CPE_ID_VENDOR = gmplib'],
  },
  gnupg: {
    part: 'a',
    cpes: ['gnupg:gnupg'],
    sources: [
      'buildroot package/gnupg/gnupg.mk: GNUPG_CPE_ID_VENDOR = gnupg',
      'buildroot package/gnupg2/gnupg2.mk: GNUPG2_CPE_ID_VENDOR = gnupg; GNUPG2_CPE_ID_PRODUCT = gnupg',
    ],
  },
  gnutls: {
    part: 'a',
    cpes: ['gnu:gnutls'],
    sources: ['buildroot package/gnutls/gnutls.mk: GNUTLS_CPE_ID_VENDOR = gnu'],
  },
  grub2: {
    part: 'a',
    cpes: ['gnu:grub2'],
    sources: [
      'buildroot boot/grub2/grub2.mk: GRUB2_CPE_ID_VENDOR = gnu',
      'openembedded-core meta/recipes-bsp/grub/grub2.inc: CVE_PRODUCT = "grub2"',
    ],
  },
  gstreamer: {
    part: 'a',
    cpes: ['gstreamer:gstreamer'],
    sources: [
      'buildroot package/gstreamer1/gstreamer1/gstreamer1.mk: GSTREAMER1_CPE_ID_VENDOR = gstreamer; GSTREAMER1_CPE_ID_PRODUCT = gstreamer',
    ],
  },
  haproxy: {
    part: 'a',
    cpes: ['haproxy:haproxy'],
    sources: ['buildroot package/haproxy/haproxy.mk: HAPROXY_CPE_ID_VENDOR = haproxy'],
  },
  hostapd: {
    part: 'a',
    cpes: ['w1.fi:hostapd'],
    sources: ['buildroot package/hostapd/hostapd.mk: HOSTAPD_CPE_ID_VENDOR = w1.fi'],
  },
  'i2c-tools': {
    part: 'a',
    cpes: ['i2c-tools_project:i2c-tools'],
    sources: ['buildroot package/i2c-tools/i2c-tools.mk: I2C_TOOLS_CPE_ID_VALID = YES'],
  },
  icu: {
    part: 'a',
    cpes: ['unicode:international_components_for_unicode'],
    sources: ['buildroot package/icu/icu.mk: ICU_CPE_ID_VENDOR = unicode; ICU_CPE_ID_PRODUCT = international_components_for_unicode'],
  },
  igmpproxy: {
    part: 'a',
    cpes: ['pali:igmpproxy'],
    sources: ['buildroot package/igmpproxy/igmpproxy.mk: IGMPPROXY_CPE_ID_VENDOR = pali'],
  },
  international_components_for_unicode: {
    part: 'a',
    cpes: ['unicode:international_components_for_unicode'],
    sources: ['buildroot package/icu/icu.mk: ICU_CPE_ID_VENDOR = unicode; ICU_CPE_ID_PRODUCT = international_components_for_unicode'],
  },
  iperf3: {
    part: 'a',
    cpes: ['es:iperf3'],
    sources: ['buildroot package/iperf3/iperf3.mk: IPERF3_CPE_ID_VENDOR = es'],
  },
  iproute2: {
    part: 'a',
    cpes: ['iproute2_project:iproute2'],
    sources: ['buildroot package/iproute2/iproute2.mk: IPROUTE2_CPE_ID_VALID = YES'],
  },
  ipset: {
    part: 'a',
    cpes: ['netfilter:ipset'],
    sources: ['buildroot package/ipset/ipset.mk: IPSET_CPE_ID_VENDOR = netfilter'],
  },
  iptables: {
    part: 'a',
    cpes: ['netfilter:iptables'],
    sources: ['buildroot package/iptables/iptables.mk: IPTABLES_CPE_ID_VENDOR = netfilter'],
  },
  iputils: {
    part: 'a',
    cpes: ['iputils:iputils'],
    sources: ['buildroot package/iputils/iputils.mk: IPUTILS_CPE_ID_VENDOR = iputils'],
  },
  iw: {
    part: 'a',
    cpes: ['kernel:iw'],
    sources: ['buildroot package/iw/iw.mk: IW_CPE_ID_VENDOR = kernel'],
  },
  jansson: {
    part: 'a',
    cpes: ['jansson_project:jansson'],
    sources: ['buildroot package/jansson/jansson.mk: JANSSON_CPE_ID_VALID = YES'],
  },
  'jpeg-turbo': {
    part: 'a',
    cpes: ['libjpeg-turbo:libjpeg-turbo'],
    sources: [
      'buildroot package/jpeg-turbo/jpeg-turbo.mk: JPEG_TURBO_CPE_ID_VENDOR = libjpeg-turbo; JPEG_TURBO_CPE_ID_PRODUCT = libjpeg-turbo',
    ],
  },
  jq: {
    part: 'a',
    cpes: ['jqlang:jq'],
    sources: ['buildroot package/jq/jq.mk: JQ_CPE_ID_VENDOR = jqlang'],
  },
  'json-c': {
    part: 'a',
    cpes: ['json-c:json-c'],
    sources: ['buildroot package/json-c/json-c.mk: JSON_C_CPE_ID_VENDOR = json-c'],
  },
  'kexec-tools': {
    part: 'a',
    cpes: ['kexec-tools_project:kexec-tools'],
    sources: ['buildroot package/kexec/kexec.mk: KEXEC_CPE_ID_PRODUCT = kexec-tools; KEXEC_CPE_ID_VENDOR = kexec-tools_project'],
  },
  kmod: {
    part: 'a',
    cpes: ['kernel:kmod'],
    sources: ['buildroot package/kmod/kmod.mk: KMOD_CPE_ID_VENDOR = kernel'],
  },
  less: {
    part: 'a',
    cpes: ['gnu:less'],
    sources: ['buildroot package/less/less.mk: LESS_CPE_ID_VENDOR = gnu'],
  },
  libaio: {
    part: 'a',
    cpes: ['libaio_project:libaio'],
    sources: ['buildroot package/libaio/libaio.mk: LIBAIO_CPE_ID_VALID = YES'],
  },
  libarchive: {
    part: 'a',
    cpes: ['libarchive:libarchive'],
    sources: ['buildroot package/libarchive/libarchive.mk: LIBARCHIVE_CPE_ID_VENDOR = libarchive'],
  },
  libcap: {
    part: 'a',
    cpes: ['libcap_project:libcap'],
    sources: ['buildroot package/libcap/libcap.mk: LIBCAP_CPE_ID_VALID = YES'],
  },
  libconfuse: {
    part: 'a',
    cpes: ['libconfuse_project:libconfuse'],
    sources: ['buildroot package/libconfuse/libconfuse.mk: LIBCONFUSE_CPE_ID_VALID = YES'],
  },
  libcurl: {
    part: 'a',
    cpes: ['haxx:libcurl'],
    sources: ['buildroot package/libcurl/libcurl.mk: LIBCURL_CPE_ID_VENDOR = haxx'],
  },
  libevent: {
    part: 'a',
    cpes: ['libevent_project:libevent'],
    sources: ['buildroot package/libevent/libevent.mk: LIBEVENT_CPE_ID_VALID = YES'],
  },
  libexif: {
    part: 'a',
    cpes: ['libexif_project:libexif'],
    sources: ['buildroot package/libexif/libexif.mk: LIBEXIF_CPE_ID_VALID = YES'],
  },
  libexpat: {
    part: 'a',
    cpes: ['libexpat_project:libexpat'],
    sources: ['buildroot package/expat/expat.mk: EXPAT_CPE_ID_VENDOR = libexpat_project; EXPAT_CPE_ID_PRODUCT = libexpat'],
  },
  libffi: {
    part: 'a',
    cpes: ['libffi_project:libffi'],
    sources: ['buildroot package/libffi/libffi.mk: LIBFFI_CPE_ID_VALID = YES'],
  },
  libgcrypt: {
    part: 'a',
    cpes: ['gnupg:libgcrypt'],
    sources: ['buildroot package/libgcrypt/libgcrypt.mk: LIBGCRYPT_CPE_ID_VENDOR = gnupg'],
  },
  libglib2: {
    part: 'a',
    cpes: ['gnome:glib'],
    sources: [
      'buildroot package/libglib2/libglib2-bootstrap/libglib2-bootstrap.mk: LIBGLIB2_BOOTSTRAP_CPE_ID_VENDOR = $(LIBGLIB2_CPE_ID_VENDOR); LIBGLIB2_BOOTSTRAP_CPE_ID_PRODUCT = $(LIBGLIB2_CPE_ID_PRODUCT); LIBGLIB2_CPE_ID_VENDOR = gnome; LIBGLIB2_CPE_ID_PRODUCT = glib',
    ],
  },
  'libgpg-error': {
    part: 'a',
    cpes: ['gnupg:libgpg-error'],
    sources: ['buildroot package/libgpg-error/libgpg-error.mk: LIBGPG_ERROR_CPE_ID_VENDOR = gnupg'],
  },
  libidn2: {
    part: 'a',
    cpes: ['gnu:libidn2'],
    sources: ['buildroot package/libidn2/libidn2.mk: LIBIDN2_CPE_ID_VENDOR = gnu'],
  },
  libjpeg: {
    part: 'a',
    cpes: ['ijg:libjpeg'],
    sources: ['buildroot package/libjpeg/libjpeg.mk: LIBJPEG_CPE_ID_VENDOR = ijg'],
  },
  'libjpeg-turbo': {
    part: 'a',
    cpes: ['libjpeg-turbo:libjpeg-turbo'],
    sources: [
      'buildroot package/jpeg-turbo/jpeg-turbo.mk: JPEG_TURBO_CPE_ID_VENDOR = libjpeg-turbo; JPEG_TURBO_CPE_ID_PRODUCT = libjpeg-turbo',
    ],
  },
  libmicrohttpd: {
    part: 'a',
    cpes: ['gnu:libmicrohttpd'],
    sources: ['buildroot package/libmicrohttpd/libmicrohttpd.mk: LIBMICROHTTPD_CPE_ID_VENDOR = gnu'],
  },
  libmnl: {
    part: 'a',
    cpes: ['netfilter:libmnl'],
    sources: ['buildroot package/libmnl/libmnl.mk: LIBMNL_CPE_ID_VENDOR = netfilter'],
  },
  libnetfilter_conntrack: {
    part: 'a',
    cpes: ['netfilter:libnetfilter_conntrack'],
    sources: ['buildroot package/libnetfilter_conntrack/libnetfilter_conntrack.mk: LIBNETFILTER_CONNTRACK_CPE_ID_VENDOR = netfilter'],
  },
  libnl: {
    part: 'a',
    cpes: ['libnl_project:libnl'],
    sources: ['buildroot package/libnl/libnl.mk: LIBNL_CPE_ID_VALID = YES'],
  },
  libopenssl: {
    part: 'a',
    cpes: ['openssl:openssl'],
    sources: [
      'buildroot package/libopenssl/libopenssl.mk: LIBOPENSSL_CPE_ID_VENDOR = $(LIBOPENSSL_PROVIDES); LIBOPENSSL_CPE_ID_PRODUCT = $(LIBOPENSSL_PROVIDES)',
    ],
  },
  libpcap: {
    part: 'a',
    cpes: ['tcpdump:libpcap'],
    sources: ['buildroot package/libpcap/libpcap.mk: LIBPCAP_CPE_ID_VENDOR = tcpdump'],
  },
  libpng: {
    part: 'a',
    cpes: ['libpng:libpng'],
    sources: ['buildroot package/libpng/libpng.mk: LIBPNG_CPE_ID_VENDOR = libpng'],
  },
  libressl: {
    part: 'a',
    cpes: ['openbsd:libressl'],
    sources: ['buildroot package/libressl/libressl.mk: LIBRESSL_CPE_ID_VENDOR = openbsd'],
  },
  libseccomp: {
    part: 'a',
    cpes: ['libseccomp_project:libseccomp'],
    sources: ['buildroot package/libseccomp/libseccomp.mk: LIBSECCOMP_CPE_ID_VALID = YES'],
  },
  libselinux: {
    part: 'a',
    cpes: ['selinuxproject:libselinux'],
    sources: ['buildroot package/libselinux/libselinux.mk: LIBSELINUX_CPE_ID_VENDOR = selinuxproject'],
  },
  libssh: {
    part: 'a',
    cpes: ['libssh:libssh'],
    sources: ['buildroot package/libssh/libssh.mk: LIBSSH_CPE_ID_VENDOR = libssh'],
  },
  libssh2: {
    part: 'a',
    cpes: ['libssh2:libssh2'],
    sources: ['buildroot package/libssh2/libssh2.mk: LIBSSH2_CPE_ID_VENDOR = libssh2'],
  },
  libtasn1: {
    part: 'a',
    cpes: ['gnu:libtasn1'],
    sources: ['buildroot package/libtasn1/libtasn1.mk: LIBTASN1_CPE_ID_VENDOR = gnu'],
  },
  libtiff: {
    part: 'a',
    cpes: ['libtiff:libtiff'],
    sources: ['buildroot package/tiff/tiff.mk: TIFF_CPE_ID_VENDOR = libtiff; TIFF_CPE_ID_PRODUCT = libtiff'],
  },
  libtirpc: {
    part: 'a',
    cpes: ['libtirpc_project:libtirpc'],
    sources: ['buildroot package/libtirpc/libtirpc.mk: LIBTIRPC_CPE_ID_VALID = YES'],
  },
  libunistring: {
    part: 'a',
    cpes: ['gnu:libunistring'],
    sources: ['buildroot package/libunistring/libunistring.mk: LIBUNISTRING_CPE_ID_VENDOR = gnu'],
  },
  libunwind: {
    part: 'a',
    cpes: ['libunwind_project:libunwind'],
    sources: ['buildroot package/libunwind/libunwind.mk: LIBUNWIND_CPE_ID_VALID = YES'],
  },
  libupnp: {
    part: 'a',
    cpes: ['libupnp_project:libupnp'],
    sources: ['buildroot package/libupnp/libupnp.mk: LIBUPNP_CPE_ID_VALID = YES'],
  },
  libusb: {
    part: 'a',
    cpes: ['libusb:libusb'],
    sources: ['buildroot package/libusb/libusb.mk: LIBUSB_CPE_ID_VENDOR = libusb'],
  },
  libuv: {
    part: 'a',
    cpes: ['libuv:libuv'],
    sources: ['buildroot package/libuv/libuv.mk: LIBUV_CPE_ID_VENDOR = libuv'],
  },
  libxml2: {
    part: 'a',
    cpes: ['xmlsoft:libxml2'],
    sources: ['buildroot package/libxml2/libxml2.mk: LIBXML2_CPE_ID_VENDOR = xmlsoft'],
  },
  libxslt: {
    part: 'a',
    cpes: ['xmlsoft:libxslt'],
    sources: ['buildroot package/libxslt/libxslt.mk: LIBXSLT_CPE_ID_VENDOR = xmlsoft'],
  },
  libyaml: {
    part: 'a',
    cpes: ['pyyaml:libyaml'],
    sources: ['buildroot package/libyaml/libyaml.mk: LIBYAML_CPE_ID_VENDOR = pyyaml'],
  },
  lighttpd: {
    part: 'a',
    cpes: ['lighttpd:lighttpd'],
    sources: ['buildroot package/lighttpd/lighttpd.mk: LIGHTTPD_CPE_ID_VENDOR = lighttpd'],
  },
  'linux-pam': {
    part: 'a',
    cpes: ['linux-pam:linux-pam'],
    sources: ['buildroot package/linux-pam/linux-pam.mk: LINUX_PAM_CPE_ID_VENDOR = linux-pam'],
  },
  linux_kernel: {
    part: 'o',
    cpes: ['linux:linux_kernel'],
    sources: [
      'buildroot linux/linux.mk: LINUX_CPE_ID_VENDOR = linux; LINUX_CPE_ID_PRODUCT = linux_kernel; LINUX_CPE_ID_PREFIX = cpe:2.3:o',
      'openembedded-core meta/classes-recipe/kernel.bbclass: CVE_PRODUCT ?= "linux_kernel linux:linux"',
    ],
  },
  lldpd: {
    part: 'a',
    cpes: ['lldpd_project:lldpd'],
    sources: ['buildroot package/lldpd/lldpd.mk: LLDPD_CPE_ID_VALID = YES'],
  },
  logrotate: {
    part: 'a',
    cpes: ['logrotate_project:logrotate'],
    sources: ['buildroot package/logrotate/logrotate.mk: LOGROTATE_CPE_ID_VALID = YES'],
  },
  lsof: {
    part: 'a',
    cpes: ['lsof_project:lsof'],
    sources: ['buildroot package/lsof/lsof.mk: LSOF_CPE_ID_VALID = YES'],
  },
  lua: {
    part: 'a',
    cpes: ['lua:lua'],
    sources: ['buildroot package/lua/lua.mk: LUA_CPE_ID_VENDOR = lua'],
  },
  luajit: {
    part: 'a',
    cpes: ['luajit:luajit'],
    sources: ['buildroot package/luajit/luajit.mk: LUAJIT_CPE_ID_VENDOR = luajit'],
  },
  lvm2: {
    part: 'a',
    cpes: ['redhat:lvm2'],
    sources: ['buildroot package/lvm2/lvm2.mk: LVM2_CPE_ID_VENDOR = redhat'],
  },
  lz4: {
    part: 'a',
    cpes: ['lz4_project:lz4'],
    sources: ['buildroot package/lz4/lz4.mk: LZ4_CPE_ID_VALID = YES'],
  },
  lzo: {
    part: 'a',
    cpes: ['lzo_project:lzo'],
    sources: ['buildroot package/lzo/lzo.mk: LZO_CPE_ID_VALID = YES'],
  },
  mbed_tls: {
    part: 'a',
    cpes: ['trustedfirmware:mbed_tls'],
    sources: ['buildroot package/mbedtls/mbedtls.mk: MBEDTLS_CPE_ID_VENDOR = trustedfirmware; MBEDTLS_CPE_ID_PRODUCT = mbed_tls'],
  },
  mbedtls: {
    part: 'a',
    cpes: ['trustedfirmware:mbed_tls'],
    sources: ['buildroot package/mbedtls/mbedtls.mk: MBEDTLS_CPE_ID_VENDOR = trustedfirmware; MBEDTLS_CPE_ID_PRODUCT = mbed_tls'],
  },
  mdadm: {
    part: 'a',
    cpes: ['mdadm_project:mdadm'],
    sources: ['buildroot package/mdadm/mdadm.mk: MDADM_CPE_ID_VALID = YES'],
  },
  mesa: {
    part: 'a',
    cpes: ['mesa3d:mesa'],
    sources: ['buildroot package/mesa3d/mesa3d.mk: MESA3D_CPE_ID_VENDOR = mesa3d; MESA3D_CPE_ID_PRODUCT = mesa'],
  },
  mosquitto: {
    part: 'a',
    cpes: ['eclipse:mosquitto'],
    sources: ['buildroot package/mosquitto/mosquitto.mk: MOSQUITTO_CPE_ID_VENDOR = eclipse'],
  },
  'mtd-utils': {
    part: 'a',
    cpes: ['mtd-utils_project:mtd-utils'],
    sources: ['buildroot package/mtd/mtd.mk: MTD_CPE_ID_VENDOR = mtd-utils_project; MTD_CPE_ID_PRODUCT = mtd-utils'],
  },
  musl: {
    part: 'a',
    cpes: ['musl-libc:musl'],
    sources: ['buildroot package/musl/musl.mk: MUSL_CPE_ID_VENDOR = musl-libc'],
  },
  ncurses: {
    part: 'a',
    cpes: ['gnu:ncurses'],
    sources: ['buildroot package/ncurses/ncurses.mk: NCURSES_CPE_ID_VENDOR = gnu'],
  },
  'net-snmp': {
    part: 'a',
    cpes: ['net-snmp:net-snmp'],
    sources: ['buildroot package/netsnmp/netsnmp.mk: NETSNMP_CPE_ID_VENDOR = net-snmp; NETSNMP_CPE_ID_PRODUCT = $(NETSNMP_CPE_ID_VENDOR)'],
  },
  'net-tools': {
    part: 'a',
    cpes: ['net-tools_project:net-tools'],
    sources: ['buildroot package/net-tools/net-tools.mk: NET_TOOLS_CPE_ID_VALID = YES'],
  },
  netcat: {
    part: 'a',
    cpes: ['netcat_project:netcat'],
    sources: ['buildroot package/netcat/netcat.mk: NETCAT_CPE_ID_VALID = YES'],
  },
  netsnmp: {
    part: 'a',
    cpes: ['net-snmp:net-snmp'],
    sources: ['buildroot package/netsnmp/netsnmp.mk: NETSNMP_CPE_ID_VENDOR = net-snmp; NETSNMP_CPE_ID_PRODUCT = $(NETSNMP_CPE_ID_VENDOR)'],
  },
  nettle: {
    part: 'a',
    cpes: ['nettle_project:nettle'],
    sources: ['buildroot package/nettle/nettle.mk: NETTLE_CPE_ID_VALID = YES'],
  },
  'nfs-utils': {
    part: 'a',
    cpes: ['linux-nfs:nfs-utils'],
    sources: ['buildroot package/nfs-utils/nfs-utils.mk: NFS_UTILS_CPE_ID_VENDOR = linux-nfs'],
  },
  nghttp2: {
    part: 'a',
    cpes: ['nghttp2:nghttp2'],
    sources: ['buildroot package/nghttp2/nghttp2.mk: NGHTTP2_CPE_ID_VENDOR = nghttp2'],
  },
  nginx: {
    part: 'a',
    cpes: ['f5:nginx'],
    sources: ['buildroot package/nginx/nginx.mk: NGINX_CPE_ID_VENDOR = f5'],
  },
  'ntfs-3g': {
    part: 'a',
    cpes: ['tuxera:ntfs-3g'],
    sources: ['buildroot package/ntfs-3g/ntfs-3g.mk: NTFS_3G_CPE_ID_VENDOR = tuxera'],
  },
  ntp: {
    part: 'a',
    cpes: ['ntp:ntp'],
    sources: ['buildroot package/ntp/ntp.mk: NTP_CPE_ID_VENDOR = ntp'],
  },
  openjpeg: {
    part: 'a',
    cpes: ['uclouvain:openjpeg'],
    sources: ['buildroot package/openjpeg/openjpeg.mk: OPENJPEG_CPE_ID_VENDOR = uclouvain'],
  },
  openldap: {
    part: 'a',
    cpes: ['openldap:openldap'],
    sources: ['buildroot package/openldap/openldap.mk: OPENLDAP_CPE_ID_VENDOR = openldap'],
  },
  openrc: {
    part: 'a',
    cpes: ['openrc_project:openrc'],
    sources: ['buildroot package/openrc/openrc.mk: OPENRC_CPE_ID_VALID = YES'],
  },
  openssh: {
    part: 'a',
    cpes: ['openbsd:openssh'],
    sources: ['buildroot package/openssh/openssh.mk: OPENSSH_CPE_ID_VENDOR = openbsd'],
  },
  openssl: {
    part: 'a',
    cpes: ['openssl:openssl'],
    sources: [
      'buildroot package/libopenssl/libopenssl.mk: LIBOPENSSL_CPE_ID_VENDOR = $(LIBOPENSSL_PROVIDES); LIBOPENSSL_CPE_ID_PRODUCT = $(LIBOPENSSL_PROVIDES)',
      'openembedded-core meta/recipes-connectivity/openssl/openssl_3.5.7.bb: CVE_PRODUCT = "openssl:openssl"',
    ],
  },
  openvpn: {
    part: 'a',
    cpes: ['openvpn:openvpn'],
    sources: ['buildroot package/openvpn/openvpn.mk: OPENVPN_CPE_ID_VENDOR = openvpn'],
  },
  'p11-kit': {
    part: 'a',
    cpes: ['p11-kit_project:p11-kit'],
    sources: ['buildroot package/p11-kit/p11-kit.mk: P11_KIT_CPE_ID_VALID = YES'],
  },
  pcre2: {
    part: 'a',
    cpes: ['pcre:pcre2'],
    sources: ['buildroot package/pcre2/pcre2.mk: PCRE2_CPE_ID_VENDOR = pcre'],
  },
  perl: {
    part: 'a',
    cpes: ['perl:perl'],
    sources: ['buildroot package/perl/perl.mk: PERL_CPE_ID_VENDOR = perl'],
  },
  php: {
    part: 'a',
    cpes: ['php:php'],
    sources: ['buildroot package/php/php.mk: PHP_CPE_ID_VENDOR = php'],
  },
  pixman: {
    part: 'a',
    cpes: ['pixman:pixman'],
    sources: ['buildroot package/pixman/pixman.mk: PIXMAN_CPE_ID_VENDOR = pixman'],
  },
  'point-to-point_protocol': {
    part: 'a',
    cpes: ['point-to-point_protocol_project:point-to-point_protocol'],
    sources: [
      'buildroot package/pppd/pppd.mk: PPPD_CPE_ID_VENDOR = point-to-point_protocol_project; PPPD_CPE_ID_PRODUCT = point-to-point_protocol',
    ],
  },
  popt: {
    part: 'a',
    cpes: ['popt_project:popt'],
    sources: ['buildroot package/popt/popt.mk: POPT_CPE_ID_VALID = YES'],
  },
  pppd: {
    part: 'a',
    cpes: ['point-to-point_protocol_project:point-to-point_protocol'],
    sources: [
      'buildroot package/pppd/pppd.mk: PPPD_CPE_ID_VENDOR = point-to-point_protocol_project; PPPD_CPE_ID_PRODUCT = point-to-point_protocol',
    ],
  },
  'procps-ng': {
    part: 'a',
    cpes: ['procps-ng_project:procps-ng'],
    sources: ['buildroot package/procps-ng/procps-ng.mk: PROCPS_NG_CPE_ID_VALID = YES'],
  },
  proftpd: {
    part: 'a',
    cpes: ['proftpd:proftpd'],
    sources: ['buildroot package/proftpd/proftpd.mk: PROFTPD_CPE_ID_VENDOR = proftpd'],
  },
  protobuf: {
    part: 'a',
    cpes: ['google:protobuf'],
    sources: ['buildroot package/protobuf/protobuf.mk: PROTOBUF_CPE_ID_VENDOR = google'],
  },
  python: {
    part: 'a',
    cpes: ['python:python'],
    sources: ['buildroot package/python3/python3.mk: PYTHON3_CPE_ID_VENDOR = python; PYTHON3_CPE_ID_PRODUCT = python'],
  },
  python3: {
    part: 'a',
    cpes: ['python:python'],
    sources: ['buildroot package/python3/python3.mk: PYTHON3_CPE_ID_VENDOR = python; PYTHON3_CPE_ID_PRODUCT = python'],
  },
  qt: {
    part: 'a',
    cpes: ['qt:qt'],
    sources: ['buildroot package/qt5/qt5base/qt5base.mk: QT5BASE_CPE_ID_VENDOR = qt; QT5BASE_CPE_ID_PRODUCT = qt'],
  },
  readline: {
    part: 'a',
    cpes: ['gnu:readline'],
    sources: ['buildroot package/readline/readline.mk: READLINE_CPE_ID_VENDOR = gnu'],
  },
  rpcbind: {
    part: 'a',
    cpes: ['rpcbind_project:rpcbind'],
    sources: ['buildroot package/rpcbind/rpcbind.mk: RPCBIND_CPE_ID_VALID = YES'],
  },
  rsync: {
    part: 'a',
    cpes: ['samba:rsync'],
    sources: ['buildroot package/rsync/rsync.mk: RSYNC_CPE_ID_VENDOR = samba'],
  },
  rsyslog: {
    part: 'a',
    cpes: ['rsyslog:rsyslog'],
    sources: ['buildroot package/rsyslog/rsyslog.mk: RSYSLOG_CPE_ID_VENDOR = rsyslog'],
  },
  ruby: {
    part: 'a',
    cpes: ['ruby-lang:ruby'],
    sources: ['buildroot package/ruby/ruby.mk: RUBY_CPE_ID_VENDOR = ruby-lang'],
  },
  samba: {
    part: 'a',
    cpes: ['samba:samba'],
    sources: ['buildroot package/samba4/samba4.mk: SAMBA4_CPE_ID_VENDOR = samba; SAMBA4_CPE_ID_PRODUCT = samba'],
  },
  samba4: {
    part: 'a',
    cpes: ['samba:samba'],
    sources: ['buildroot package/samba4/samba4.mk: SAMBA4_CPE_ID_VENDOR = samba; SAMBA4_CPE_ID_PRODUCT = samba'],
  },
  shadow: {
    part: 'a',
    cpes: ['debian:shadow', 'shadow_project:shadow'],
    sources: [
      'buildroot package/shadow/shadow.mk: SHADOW_CPE_ID_VENDOR = debian',
      'openembedded-core meta/recipes-extended/shadow/shadow_4.20.2.bb: CVE_PRODUCT = "debian:shadow shadow_project:shadow"',
    ],
  },
  socat: {
    part: 'a',
    cpes: ['dest-unreach:socat'],
    sources: ['buildroot package/socat/socat.mk: SOCAT_CPE_ID_VENDOR = dest-unreach'],
  },
  sqlite: {
    part: 'a',
    cpes: ['sqlite:sqlite'],
    sources: ['buildroot package/sqlite/sqlite.mk: SQLITE_CPE_ID_VENDOR = sqlite'],
  },
  squashfs: {
    part: 'a',
    cpes: ['squashfs_project:squashfs'],
    sources: ['buildroot package/squashfs/squashfs.mk: SQUASHFS_CPE_ID_VALID = YES'],
  },
  strace: {
    part: 'a',
    cpes: ['strace_project:strace'],
    sources: ['buildroot package/strace/strace.mk: STRACE_CPE_ID_VALID = YES'],
  },
  strongswan: {
    part: 'a',
    cpes: ['strongswan:strongswan'],
    sources: ['buildroot package/strongswan/strongswan.mk: STRONGSWAN_CPE_ID_VENDOR = strongswan'],
  },
  sudo: {
    part: 'a',
    cpes: ['gratisoft:sudo', 'sudo:sudo', 'sudo_project:sudo', 'todd_miller:sudo'],
    sources: [
      'openembedded-core meta/recipes-extended/sudo/sudo_1.9.17p2.bb: CVE_PRODUCT = "gratisoft:sudo sudo:sudo sudo_project:sudo todd_miller:sudo"',
    ],
  },
  sysklogd: {
    part: 'a',
    cpes: ['sysklogd_project:sysklogd'],
    sources: ['buildroot package/sysklogd/sysklogd.mk: SYSKLOGD_CPE_ID_VALID = YES'],
  },
  'syslog-ng': {
    part: 'a',
    cpes: ['oneidentity:syslog-ng'],
    sources: ['buildroot package/syslog-ng/syslog-ng.mk: SYSLOG_NG_CPE_ID_VENDOR = oneidentity'],
  },
  systemd: {
    part: 'a',
    cpes: ['systemd_project:systemd'],
    sources: ['buildroot package/systemd/systemd.mk: SYSTEMD_CPE_ID_VALID = YES'],
  },
  sysvinit: {
    part: 'a',
    cpes: ['sysvinit_project:sysvinit'],
    sources: ['buildroot package/sysvinit/sysvinit.mk: SYSVINIT_CPE_ID_VALID = YES'],
  },
  tar: {
    part: 'a',
    cpes: ['gnu:tar'],
    sources: [
      'buildroot package/tar/tar.mk: TAR_CPE_ID_VENDOR = gnu',
      'openembedded-core meta/recipes-extended/tar/tar_1.35.bb: CVE_PRODUCT = "gnu:tar"',
    ],
  },
  tcl: {
    part: 'a',
    cpes: ['tcl:tcl'],
    sources: ['buildroot package/tcl/tcl.mk: TCL_CPE_ID_VENDOR = tcl'],
  },
  tcpdump: {
    part: 'a',
    cpes: ['tcpdump:tcpdump'],
    sources: ['buildroot package/tcpdump/tcpdump.mk: TCPDUMP_CPE_ID_VENDOR = tcpdump'],
  },
  tiff: {
    part: 'a',
    cpes: ['libtiff:libtiff'],
    sources: ['buildroot package/tiff/tiff.mk: TIFF_CPE_ID_VENDOR = libtiff; TIFF_CPE_ID_PRODUCT = libtiff'],
  },
  tinyxml2: {
    part: 'a',
    cpes: ['tinyxml2_project:tinyxml2'],
    sources: ['buildroot package/tinyxml2/tinyxml2.mk: TINYXML2_CPE_ID_VALID = YES'],
  },
  tmux: {
    part: 'a',
    cpes: ['tmux_project:tmux'],
    sources: ['buildroot package/tmux/tmux.mk: TMUX_CPE_ID_VALID = YES'],
  },
  'u-boot': {
    part: 'a',
    cpes: ['denx:u-boot'],
    sources: [
      'buildroot boot/uboot/uboot.mk: UBOOT_CPE_ID_VENDOR = denx; UBOOT_CPE_ID_PRODUCT = u-boot',
      'buildroot package/uboot-tools/uboot-tools.mk: UBOOT_TOOLS_CPE_ID_VENDOR = denx; UBOOT_TOOLS_CPE_ID_PRODUCT = u-boot',
      'openembedded-core meta/recipes-bsp/u-boot/u-boot.inc: CVE_PRODUCT = "denx:u-boot"',
    ],
  },
  'uboot-tools': {
    part: 'a',
    cpes: ['denx:u-boot'],
    sources: ['buildroot package/uboot-tools/uboot-tools.mk: UBOOT_TOOLS_CPE_ID_VENDOR = denx; UBOOT_TOOLS_CPE_ID_PRODUCT = u-boot'],
  },
  uclibc: {
    part: 'a',
    cpes: ['uclibc-ng_project:uclibc-ng'],
    sources: ['buildroot package/uclibc/uclibc.mk: UCLIBC_CPE_ID_VENDOR = uclibc-ng_project; UCLIBC_CPE_ID_PRODUCT = uclibc-ng'],
  },
  'uclibc-ng': {
    part: 'a',
    cpes: ['uclibc-ng_project:uclibc-ng'],
    sources: ['buildroot package/uclibc/uclibc.mk: UCLIBC_CPE_ID_VENDOR = uclibc-ng_project; UCLIBC_CPE_ID_PRODUCT = uclibc-ng'],
  },
  unbound: {
    part: 'a',
    cpes: ['nlnetlabs:unbound'],
    sources: ['buildroot package/unbound/unbound.mk: UNBOUND_CPE_ID_VENDOR = nlnetlabs'],
  },
  'util-linux': {
    part: 'a',
    cpes: ['kernel:util-linux'],
    sources: [
      'buildroot package/util-linux/util-linux-libs/util-linux-libs.mk: UTIL_LINUX_LIBS_CPE_ID_VENDOR = $(UTIL_LINUX_CPE_ID_VENDOR); UTIL_LINUX_LIBS_CPE_ID_PRODUCT = $(UTIL_LINUX_CPE_ID_PRODUCT); UTIL_LINUX_CPE_ID_VENDOR = kernel',
    ],
  },
  valgrind: {
    part: 'a',
    cpes: ['valgrind:valgrind'],
    sources: ['buildroot package/valgrind/valgrind.mk: VALGRIND_CPE_ID_VENDOR = valgrind'],
  },
  vim: {
    part: 'a',
    cpes: ['vim:vim'],
    sources: ['buildroot package/vim/vim.mk: VIM_CPE_ID_VENDOR = vim'],
  },
  vsftpd: {
    part: 'a',
    cpes: ['vsftpd_project:vsftpd'],
    sources: ['buildroot package/vsftpd/vsftpd.mk: VSFTPD_CPE_ID_VALID = YES'],
  },
  wayland: {
    part: 'a',
    cpes: ['wayland:wayland'],
    sources: ['buildroot package/wayland/wayland.mk: WAYLAND_CPE_ID_VENDOR = wayland'],
  },
  weston: {
    part: 'a',
    cpes: ['wayland:weston'],
    sources: ['buildroot package/weston/weston.mk: WESTON_CPE_ID_VENDOR = wayland'],
  },
  wget: {
    part: 'a',
    cpes: ['gnu:wget'],
    sources: ['buildroot package/wget/wget.mk: WGET_CPE_ID_VENDOR = gnu'],
  },
  wolfssl: {
    part: 'a',
    cpes: ['wolfssl:wolfssl'],
    sources: ['buildroot package/wolfssl/wolfssl.mk: WOLFSSL_CPE_ID_VENDOR = wolfssl'],
  },
  wpa_supplicant: {
    part: 'a',
    cpes: ['w1.fi:wpa_supplicant'],
    sources: [
      'buildroot package/wpa_supplicant/wpa_supplicant.mk: WPA_SUPPLICANT_CPE_ID_VENDOR = w1.fi',
      'openembedded-core meta/recipes-connectivity/wpa-supplicant/wpa-supplicant_2.12.bb: CVE_PRODUCT = "wpa_supplicant"',
    ],
  },
  xz: {
    part: 'a',
    cpes: ['tukaani:xz'],
    sources: ['buildroot package/xz/xz.mk: XZ_CPE_ID_VENDOR = tukaani'],
  },
  yajl: {
    part: 'a',
    cpes: ['yajl_project:yajl'],
    sources: ['buildroot package/yajl/yajl.mk: YAJL_CPE_ID_VALID = YES'],
  },
  zlib: {
    part: 'a',
    cpes: ['zlib:zlib', 'gnu:zlib'],
    sources: [
      'buildroot package/libzlib/libzlib.mk: LIBZLIB_CPE_ID_VENDOR = zlib; LIBZLIB_CPE_ID_PRODUCT = zlib',
      'openembedded-core meta/recipes-core/zlib/zlib_1.3.2.bb: CVE_PRODUCT = "zlib:zlib gnu:zlib"',
    ],
  },
  zstandard: {
    part: 'a',
    cpes: ['facebook:zstandard'],
    sources: ['buildroot package/zstd/zstd.mk: ZSTD_CPE_ID_VENDOR = facebook; ZSTD_CPE_ID_PRODUCT = zstandard'],
  },
  zstd: {
    part: 'a',
    cpes: ['facebook:zstandard'],
    sources: ['buildroot package/zstd/zstd.mk: ZSTD_CPE_ID_VENDOR = facebook; ZSTD_CPE_ID_PRODUCT = zstandard'],
  },
};
