import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blockedRange } from '../../src/media/address-policy.ts';

/** [address, expected range name] — each range with a representative and its edges. */
const BLOCKED_V4: Array<[string, string]> = [
  ['10.0.0.0', 'private'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['192.168.255.255', 'private'],
  ['127.0.0.1', 'loopback'],
  ['127.0.0.0', 'loopback'],
  ['127.255.255.255', 'loopback'],
  ['169.254.0.0', 'linkLocal'],
  ['169.254.169.254', 'linkLocal'],
  ['169.254.255.255', 'linkLocal'],
  ['224.0.0.0', 'multicast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['100.64.0.0', 'carrierGradeNat'],
  ['100.127.255.255', 'carrierGradeNat'],
  ['192.0.2.0', 'documentation'],
  ['192.0.2.255', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.255', 'documentation'],
  ['198.18.0.0', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['192.0.0.0', 'reserved'],
  ['192.0.0.9', 'reserved'],
  ['192.0.0.255', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['192.175.48.1', 'as112'],
];

const BLOCKED_V6: Array<[string, string]> = [
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['fc00::', 'private'],
  ['fd12:3456::1', 'private'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['fe80::', 'linkLocal'],
  ['fe80::1', 'linkLocal'],
  ['febf:ffff::1', 'linkLocal'],
  ['fe80::1%eth0', 'linkLocal'],
  ['fec0::1', 'siteLocal'],
  ['ff00::', 'multicast'],
  ['ff02::1', 'multicast'],
  ['2001:db8::', 'documentation'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['3fff::1', 'documentation'],
  ['3fff:0fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['2001:2:0:ffff::1', 'benchmarking'],
  ['2001:10::1', 'deprecatedOrchid'],
  ['2001:20::1', 'orchid2'],
  ['2001:1ff::1', 'reserved'],
  ['64:ff9b:1::1', 'nat64'],
  ['100::', 'discard'],
  ['100::ffff:ffff:ffff:ffff', 'discard'],
  ['4000::1', 'reserved'],
  ['1fff:ffff::1', 'reserved'],
  ['::2', 'unspecified'],
];

/** IPv6 forms that carry an IPv4 address, judged by (or refused because of) that address. */
const BLOCKED_EMBEDDED: Array<[string, string]> = [
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:a00:1', 'private'],
  ['::ffff:169.254.169.254', 'linkLocal'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::127.0.0.1', 'loopback'],
  ['::10.0.0.1', 'private'],
  ['::8.8.8.8', 'ipv4Compatible'],
  ['64:ff9b::a9fe:a9fe', 'linkLocal'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['::ffff:0:10.0.0.1', 'ipv4Translated'],
  ['::ffff:0:8.8.8.8', 'ipv4Translated'],
  // 6to4 and Teredo are refused outright, whatever they embed.
  ['2002:0a00:0001::', '6to4'],
  ['2002:a9fe:a9fe::1', '6to4'],
  ['2002:0808:0808::1', '6to4'],
  // Teredo: server 65.54.227.120, client 10.0.0.1 obfuscated as its bitwise NOT (f5ff:fffe).
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
];

const PUBLIC: string[] = [
  '8.8.8.8',
  '1.1.1.1',
  '1.0.0.0',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.255',
  '192.0.3.0',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2a00:1450::1',
  '2001:4860:4860::8888',
  '2001:200::1',
  '2003::1',
  '3ffe::1',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '64:ff9b::1.1.1.1',
];

describe('blockedRange refuses', () => {
  for (const [address, range] of [...BLOCKED_V4, ...BLOCKED_V6, ...BLOCKED_EMBEDDED]) {
    it(`${address} as ${range}`, () => {
      assert.equal(blockedRange(address, false), range);
    });
  }

  it('anything that is not a strictly written IP address', () => {
    for (const value of ['', 'localhost', 'example.com', '2130706433', '0x7f.1', '0177.0.0.1', '127.1', '010.0.0.1', '1.2.3.4.5', '256.0.0.1', '[::1]', ' 8.8.8.8', '::g']) {
      assert.equal(blockedRange(value, false), 'invalid', value);
      assert.equal(blockedRange(value, true), 'invalid', value);
    }
  });
});

describe('blockedRange allows', () => {
  for (const address of PUBLIC) {
    it(`public unicast ${address}`, () => {
      assert.equal(blockedRange(address, false), undefined);
      assert.equal(blockedRange(address, true), undefined);
    });
  }
});

describe('blockedRange with allowLoopback', () => {
  it('lets exactly 127.0.0.0/8, ::1 and the mapped ::ffff:127.x.y.z through', () => {
    for (const address of ['127.0.0.1', '127.255.0.1', '127.0.0.0', '127.255.255.255', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      assert.equal(blockedRange(address, true), undefined, address);
    }
  });

  it('still refuses every other special range', () => {
    const stillBlocked: Array<[string, string]> = [
      ['10.0.0.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['::127.0.0.1', 'loopback'],
      ['64:ff9b::127.0.0.1', 'loopback'],
      ['::ffff:10.0.0.1', 'private'],
      ['::2', 'unspecified'],
      ['fe80::1', 'linkLocal'],
      ['2002:7f00:0001::', '6to4'],
    ];
    for (const [address, range] of stillBlocked) assert.equal(blockedRange(address, true), range, address);
  });
});
