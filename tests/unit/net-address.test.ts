import { describe, expect, it } from "vitest";
import type os from "node:os";
import { addressKey, classifyAddress, isPublicAddress, parseIPv6 } from "../../lib/net/address.ts";
import { interfaceAddressKeys } from "../../lib/net/this-machine.ts";

describe("classifyAddress", () => {
  it.each([
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.254", "cgnat"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.169.254", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "reserved"],
    ["192.0.2.10", "documentation"],
    ["192.88.99.1", "reserved"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
  ])("IPv4 %s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each([
    "1.1.1.1",
    "8.8.8.8",
    "93.184.216.34",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.169.0.1",
    "198.20.0.1",
    "223.255.255.255",
  ])("IPv4 %s is public", (ip) => {
    expect(classifyAddress(ip)).toBe("public");
  });

  it.each([
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["fe80::1", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fc00::1", "private"],
    ["fd12:3456:789a::1", "private"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["3fff::1", "documentation"],
    ["2001::1", "reserved"], // Teredo
    ["2001:10::1", "reserved"], // ORCHID
    ["100::1", "reserved"],
    ["64:ff9b:1::1", "private"],
    ["4000::1", "reserved"], // outside 2000::/3
    ["5f00::1", "reserved"],
  ])("IPv6 %s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each(["2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "2001:4860:4860::8888"])("IPv6 %s is public", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.1.2.3", "private"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:100.64.1.1", "cgnat"],
    ["::ffff:0.0.0.0", "unspecified"],
    ["::ffff:0:192.168.0.1", "private"], // IPv4-translated
    ["::127.0.0.1", "loopback"], // IPv4-compatible
    ["::8.8.8.8", "reserved"], // IPv4-compatible is deprecated even for public addresses
    ["64:ff9b::127.0.0.1", "loopback"], // NAT64
    ["64:ff9b::a00:1", "private"],
    ["2002:7f00:1::1", "loopback"], // 6to4 of 127.0.0.1
    ["2002:c0a8:101::1", "private"], // 6to4 of 192.168.1.1
    ["[::ffff:127.0.0.1]", "loopback"],
  ])("IPv4 inside IPv6 %s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it("reaches the IPv4 inside mapped, NAT64 and 6to4 forms when it is public", () => {
    expect(classifyAddress("::ffff:8.8.8.8")).toBe("public");
    expect(classifyAddress("64:ff9b::808:808")).toBe("public");
    expect(classifyAddress("2002:808:808::1")).toBe("public");
  });

  it("refuses what is not an address, including zone ids", () => {
    expect(classifyAddress("localhost")).toBe("invalid");
    expect(classifyAddress("fe80::1%eth0")).toBe("invalid");
    expect(classifyAddress("1.2.3")).toBe("invalid");
    expect(classifyAddress("")).toBe("invalid");
  });

  it("parses IPv6 forms to 16 bytes", () => {
    expect(parseIPv6("::1")).toEqual([...Array(15).fill(0), 1]);
    expect(parseIPv6("::ffff:1.2.3.4")?.slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(parseIPv6("2001:db8::")?.slice(0, 4)).toEqual([0x20, 0x01, 0x0d, 0xb8]);
  });
});

describe("addressKey", () => {
  it("spells each address one way: IPv4 and the IPv6 forms that reach it alike, IPv6 in any spelling, zones dropped", () => {
    const v4 = addressKey("192.0.2.2");
    for (const same of ["[::ffff:192.0.2.2]", "::ffff:c000:202", "0:0:0:0:0:ffff:192.0.2.2", "::ffff:0:192.0.2.2", "64:ff9b::192.0.2.2"])
      expect(addressKey(same), same).toBe(v4);
    expect(addressKey("fd00:0:0:0:0:0:0:2")).toBe(addressKey("[FD00::2]"));
    expect(addressKey("fe80::fc:ff:fe00:1%eth0")).toBe(addressKey("[fe80::fc:ff:fe00:1]"));
    expect(addressKey("192.0.2.3")).not.toBe(v4);
    expect(addressKey("::192.0.2.2")).not.toBe(v4); // IPv4-compatible: deprecated, reaches nothing
    expect(addressKey("example.com")).toBeNull();
  });
});

describe("interfaceAddressKeys", () => {
  it("keeps every non-loopback address of every interface, both families", () => {
    const info = (address: string, family: "IPv4" | "IPv6", internal = false) =>
      ({ address, family, internal, netmask: "", mac: "", cidr: null, scopeid: 0 }) as os.NetworkInterfaceInfo;
    const keys = interfaceAddressKeys({
      lo: [info("127.0.0.1", "IPv4", true), info("::1", "IPv6", true)],
      eth0: [info("192.0.2.2", "IPv4"), info("fd00::2", "IPv6"), info("fe80::fc:ff:fe00:1", "IPv6")],
    });
    expect([...keys].sort()).toEqual([addressKey("192.0.2.2"), addressKey("fd00::2"), addressKey("fe80::fc:ff:fe00:1")].sort());
  });
});
