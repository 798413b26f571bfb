#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Independent reader of the mqstripe superblock, written from docs/FORMAT.md
alone (it shares no code with stripectl), and the tools the persistence
tests need to damage a superblock or plant foreign signatures.

  sbtool.py parse DEV            the superblock as JSON (every field, the
                                 checks of "Reading", which copy is used);
                                 exit 1 if not valid
  sbtool.py crc32c TEXT          CRC-32C of TEXT (check value of 123456789)
  sbtool.py flip DEV OFFSET [COPY]
                                 XOR byte OFFSET of the superblock with 0x01,
                                 in COPY (0: at 4096, 1: at 8192) or, by
                                 default, in every copy that has the magic
  sbtool.py set-incompat DEV BIT set a feature_incompat bit in every copy,
                                 fix the checksums
  sbtool.py set-ro-compat DEV BIT
                                 the same for feature_ro_compat (format 2)
  sbtool.py save DEV FILE        copy the superblock area (bytes 4096 to
                                 12287: both copies) to FILE
  sbtool.py restore DEV FILE     write it back
  sbtool.py gpt DEV              write a protective MBR and a GPT (primary
                                 and backup) with one partition
"""
import json
import os
import struct
import sys
import uuid as uuidlib
import zlib

SB_OFFSET = 4096
SB_SIZE = 4096
COPY_OFFSETS = (4096, 8192)
MAGIC = b"MQSTRIPE"

# (offset, size or struct format, name) from the tables of docs/FORMAT.md:
# the fields both format versions have
FIELDS = [
    (0x000, "8s", "magic"),
    (0x008, "<I", "format_version"),
    (0x00C, "<I", "checksum"),
    (0x010, "<Q", "feature_compat"),
    (0x018, "<Q", "feature_incompat"),
    (0x020, "<Q", "sb_offset_bytes"),
    (0x028, "<I", "layout_version"),
    (0x02C, "<I", "state"),
    (0x030, "16s", "array_uuid"),
    (0x040, "16s", "member_uuid"),
    (0x050, "<I", "slot"),
    (0x054, "<I", "nr_members"),
    (0x058, "<Q", "chunk_bytes"),
    (0x060, "<Q", "data_offset_bytes"),
    (0x068, "<Q", "data_bytes"),
    (0x070, "<I", "array_logical_block_size"),
    (0x074, "<I", "member_logical_block_size"),
    (0x078, "<Q", "ctime"),
    (0x080, "<Q", "utime"),
    (0x088, "<Q", "events"),
    (0x090, "32s", "name"),
]
# format version 1: then reserved bytes and the member table
FIELDS_V1 = [(0x0B0, "80s", "reserved")]
# format version 2: then these, the segment table and the member table
FIELDS_V2 = [
    (0x0B0, "<Q", "feature_ro_compat"),
    (0x0B8, "<Q", "generation"),
    (0x0C0, "<I", "queue_depth"),
    (0x0C4, "<I", "nr_segments"),
    (0x0C8, "<Q", "reshape_position_bytes"),
    (0x0D0, "48s", "reserved"),
]
SEGMENTS_OFFSET, SEGMENT_SIZE, SEGMENTS = 0x100, 64, 4
SEGMENT_FIELDS = [
    (0x00, "<Q", "array_start_bytes"),
    (0x08, "<Q", "data_offset_bytes"),
    (0x10, "<Q", "data_bytes"),
    (0x18, "<Q", "chunk_bytes"),
    (0x20, "<I", "layout_version"),
    (0x24, "<I", "nr_members"),
    (0x28, "<I", "first_slot"),
    (0x2C, "20s", "reserved"),
]
TABLE = {1: (0x100, 240), 2: (0x200, 224)}
# feature_incompat bit 0, MEMBER_SIZES (format 2): each slot's data bytes
# (256 x le64 at 0x200), the member table at 0xa00 (96 entries)
MEMBER_SIZES = 1 << 0
SIZES_OFFSET, SIZES_SLOTS = 0x200, 256
SIZES_TABLE = (0xa00, 96)
# feature_compat bit 0, the fault record (both formats, in bytes reserved
# in each): fault_events (le64 at 0x0d0), a bit per slot (32 bytes at
# 0x0d8: bit s mod 8 of byte s div 8)
FAULT_RECORD = 1 << 0
FAULT_EVENTS_OFFSET, FAULT_SLOTS_OFFSET, FAULT_END = 0x0D0, 0x0D8, 0x0F8
# feature_incompat bit 1, SEGMENTS (format 2, with MEMBER_SIZES): 2 to 4
# entries of the segment table, members added after the array's end
SEGMENTS_BIT = 1 << 1


def crc32c(data, crc=0):
    """CRC-32C, reflected polynomial 0x82F63B78, init/final 0xFFFFFFFF."""
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def block_crc(block):
    return crc32c(block[:0x00C] + b"\0\0\0\0" + block[0x010:SB_SIZE])


def read_block(dev, offset=SB_OFFSET, size=SB_SIZE):
    fd = os.open(dev, os.O_RDONLY)
    try:
        return os.pread(fd, size, offset)
    finally:
        os.close(fd)


def write_block(dev, block, offset=SB_OFFSET):
    fd = os.open(dev, os.O_RDWR)
    try:
        os.pwrite(fd, block, offset)
        os.fsync(fd)
    finally:
        os.close(fd)


def is_pow2(v):
    return v > 0 and v & (v - 1) == 0


def parse(block, at=SB_OFFSET):
    """Every field of the tables, and the checks of "Reading" in order,
    for the copy read at byte AT."""
    sb = {}
    for off, fmt, name in FIELDS:
        (sb[name],) = struct.unpack_from(fmt, block, off)
    version = sb["format_version"]
    for off, fmt, name in FIELDS_V2 if version == 2 else FIELDS_V1:
        (sb[name],) = struct.unpack_from(fmt, block, off)
    raw_name = sb["name"]
    sb["magic"] = sb["magic"].decode("ascii", "replace")
    sb["array_uuid"] = str(uuidlib.UUID(bytes=sb["array_uuid"]))
    sb["member_uuid"] = str(uuidlib.UUID(bytes=sb["member_uuid"]))
    sb["name"] = raw_name.split(b"\0", 1)[0].decode("ascii", "replace")
    reserved = sb.pop("reserved")
    if sb["feature_compat"] & FAULT_RECORD:
        (sb["fault_events"],) = struct.unpack_from("<Q", block,
                                                   FAULT_EVENTS_OFFSET)
        bits = block[FAULT_SLOTS_OFFSET:FAULT_END]
        sb["fault_slots"] = [i for i in range(8 * len(bits))
                             if bits[i // 8] >> (i % 8) & 1]
        # the record's bytes are not reserved ones
        start = FIELDS_V1[0][0] if version != 2 else FIELDS_V2[-1][0]
        reserved = (reserved[:FAULT_EVENTS_OFFSET - start] +
                    reserved[FAULT_END - start:])
    sb["reserved_zero"] = not any(reserved)
    table_offset, table_slots = TABLE.get(version, TABLE[1])
    sizes = None
    if version == 2 and sb["feature_incompat"] & MEMBER_SIZES:
        table_offset, table_slots = SIZES_TABLE
        sizes = list(struct.unpack_from("<%dQ" % SIZES_SLOTS, block,
                                        SIZES_OFFSET))
        sb["member_data_bytes"] = sizes[:sb["nr_members"]]
    n = min(sb["nr_members"], table_slots)
    table = [block[table_offset + 16 * i:table_offset + 16 * (i + 1)]
             for i in range(table_slots)]
    sb["member_uuids"] = [str(uuidlib.UUID(bytes=t)) for t in table[:n]]
    sb["table_tail_zero"] = all(t == bytes(16) for t in table[n:])
    sb["checksum_computed"] = block_crc(block)
    if version == 2:
        sb["segments"] = []
        for i in range(SEGMENTS):
            seg = {}
            for off, fmt, name in SEGMENT_FIELDS:
                (seg[name],) = struct.unpack_from(
                    fmt, block, SEGMENTS_OFFSET + SEGMENT_SIZE * i + off)
            seg["reserved"] = not any(seg["reserved"])
            sb["segments"].append(seg)

    def verdict():
        if sb["magic"] != MAGIC.decode():
            return "none"
        if sb["checksum"] != sb["checksum_computed"]:
            return "bad-checksum"
        if version not in (1, 2):
            return "unknown-version"
        if sb["feature_incompat"] & ~(MEMBER_SIZES | SEGMENTS_BIT):
            return "unknown-incompat-feature"
        if sb["layout_version"] != 1:
            return "unknown-layout"
        nr, chunk = sb["nr_members"], sb["chunk_bytes"]
        checks = [
            sb["sb_offset_bytes"] == at,
            1 <= nr <= 256,
            sb["slot"] < nr,
            is_pow2(chunk) and 4096 <= chunk <= 16 << 20,
            nr * chunk <= 1 << 30,
            sb["data_offset_bytes"] >= (8192 if version == 1 else 12288),
            sb["data_offset_bytes"] % 4096 == 0,
            sb["data_bytes"] > 0 and sb["data_bytes"] % chunk == 0,
            is_pow2(sb["member_logical_block_size"]),
            512 <= sb["member_logical_block_size"] <= 4096,
            is_pow2(sb["array_logical_block_size"]),
            sb["member_logical_block_size"] <=
            sb["array_logical_block_size"] <= 4096,
            sb["state"] in (0, 1),
            b"\0" in raw_name,
            all(c.isalnum() or c in "._-" for c in sb["name"]),
            sb["array_uuid"] != str(uuidlib.UUID(int=0)),
            sb["member_uuid"] != str(uuidlib.UUID(int=0)),
            sb["slot"] >= table_slots or
            sb["member_uuids"][sb["slot"]] == sb["member_uuid"],
        ]
        if version == 2 and sb["feature_incompat"] & SEGMENTS_BIT:
            nseg, segs = sb["nr_segments"], sb["segments"]
            checks += [
                bool(sb["feature_incompat"] & MEMBER_SIZES),
                2 <= nseg <= 4,
                nr <= 96,
                sb["queue_depth"] == 0 or 1 <= sb["queue_depth"] <= 4096,
                sb["reshape_position_bytes"] == 0,
            ]
            start = first = 0
            for k, seg in enumerate(segs):
                if k >= nseg:
                    checks.append(not any(v for key, v in seg.items()
                                          if key != "reserved")
                                  and seg["reserved"])
                    continue
                own = (sizes or [])[first:first + seg["nr_members"]]
                checks += [
                    seg["nr_members"] > 0,
                    seg["array_start_bytes"] == start,
                    seg["data_offset_bytes"] == sb["data_offset_bytes"],
                    bool(own) and seg["data_bytes"] == min(own),
                    seg["chunk_bytes"] == chunk,
                    seg["layout_version"] == sb["layout_version"],
                    seg["first_slot"] == first,
                    seg["reserved"],
                ]
                start += sum(own)
                first += seg["nr_members"]
            checks.append(first == nr)
        elif version == 2:
            seg0 = sb["segments"][0]
            checks += [
                sb["queue_depth"] == 0 or 1 <= sb["queue_depth"] <= 4096,
                sb["nr_segments"] == 1,
                sb["reshape_position_bytes"] == 0,
                seg0["array_start_bytes"] == 0,
                seg0["data_offset_bytes"] == sb["data_offset_bytes"],
                seg0["data_bytes"] == sb["data_bytes"],
                seg0["chunk_bytes"] == chunk,
                seg0["layout_version"] == sb["layout_version"],
                seg0["nr_members"] == nr,
                seg0["first_slot"] == 0,
                all(not any(v for k, v in seg.items() if k != "reserved")
                    and seg["reserved"] for seg in sb["segments"][1:]),
            ]
        else:
            checks.append(at == SB_OFFSET)
        if sb["feature_incompat"] & MEMBER_SIZES:
            own = sizes[:nr] if sizes else []
            checks += [
                version == 2,
                all(v > 0 and v % chunk == 0 for v in own),
                not any(sizes[nr:]) if sizes else False,
                bool(own) and sb["data_bytes"] == min(own),
                sum(own) <= (1 << 63) - 1,
            ]
        return "ok" if all(checks) else "invalid"

    sb["status"] = verdict()
    return sb


def parse_member(dev):
    """The superblock of a member from its copies ("Reading" in
    docs/FORMAT.md): a valid format-1 superblock at 4096 is it; else the
    valid format-2 copy of the higher generation (4096 of equals); else
    the copy at 4096, or the one at 8192 when 4096 has no magic."""
    blocks = [read_block(dev, off) for off in COPY_OFFSETS]
    copies = [parse(b, off) if len(b) == SB_SIZE else {"status": "none"}
              for b, off in zip(blocks, COPY_OFFSETS)]
    a, b = copies
    if a["status"] == "ok" and a["format_version"] == 1:
        use = 0
    elif b["status"] == "ok" and (a["status"] != "ok" or
                                  b["generation"] > a["generation"]):
        use = 1
    elif a["status"] == "none" and b["status"] != "none":
        use = 1
    else:
        use = 0
    sb = dict(copies[use])
    sb["copy_in_use"] = use
    sb["copies"] = [{"offset_bytes": off, "status": c["status"],
                     "generation": c.get("generation")}
                    for c, off in zip(copies, COPY_OFFSETS)]
    return sb


def copies_with_magic(dev, which):
    if which in ("0", "1"):
        return [COPY_OFFSETS[int(which)]]
    return [off for off in COPY_OFFSETS
            if read_block(dev, off)[:8] == MAGIC]


def gpt(dev):
    """PMBR + primary and backup GPT, one Linux partition from LBA 2048."""
    fd = os.open(dev, os.O_RDWR)
    try:
        size = os.lseek(fd, 0, os.SEEK_END)
        lbs = 512
        try:
            with open("/sys/class/block/%s/queue/logical_block_size" %
                      os.path.basename(os.path.realpath(dev))) as f:
                lbs = int(f.read())
        except OSError:
            pass
        last = size // lbs - 1
        entries_lbas = 16384 // lbs
        first_usable = 2 + entries_lbas
        last_usable = last - 1 - entries_lbas
        pstart = 1048576 // lbs
        pend = min(last_usable, pstart + 8 * 1048576 // lbs - 1)
        entry = struct.pack("<16s16sQQQ72s",
                            uuidlib.UUID("0fc63daf-8483-4772-8e79-3d69d8477de4").bytes_le,
                            uuidlib.uuid4().bytes_le, pstart, pend, 0,
                            "mqs-test".encode("utf-16-le"))
        entries = entry + bytes(128 * 127)
        ecrc = zlib.crc32(entries) & 0xFFFFFFFF
        disk_guid = uuidlib.uuid4().bytes_le

        def header(my_lba, alt_lba, entries_lba):
            h = struct.pack("<8sIIIIQQQQ16sQIII", b"EFI PART", 0x00010000, 92,
                            0, 0, my_lba, alt_lba, first_usable, last_usable,
                            disk_guid, entries_lba, 128, 128, ecrc)
            h = h[:16] + struct.pack("<I", zlib.crc32(h) & 0xFFFFFFFF) + h[20:]
            return h + bytes(lbs - len(h))

        mbr = bytearray(lbs)
        mbr[446:462] = struct.pack("<BBBBBBBBII", 0, 0, 2, 0, 0xEE, 0xFF, 0xFF,
                                   0xFF, 1, min(last, 0xFFFFFFFF))
        mbr[510:512] = b"\x55\xaa"
        os.pwrite(fd, bytes(mbr), 0)
        os.pwrite(fd, header(1, last, 2), lbs)
        os.pwrite(fd, entries, 2 * lbs)
        os.pwrite(fd, entries, (last - entries_lbas) * lbs)
        os.pwrite(fd, header(last, 1, last - entries_lbas), last * lbs)
        os.fsync(fd)
    finally:
        os.close(fd)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    cmd = argv[1]
    if cmd == "crc32c" and len(argv) == 3:
        print("0x%08x" % crc32c(argv[2].encode()))
        return 0
    if cmd == "parse" and len(argv) == 3:
        sb = parse_member(argv[2])
        print(json.dumps(sb, indent=1, sort_keys=True))
        return 0 if sb["status"] == "ok" else 1
    if cmd == "flip" and len(argv) in (4, 5):
        for off in copies_with_magic(argv[2], argv[4] if len(argv) == 5
                                     else "all"):
            block = bytearray(read_block(argv[2], off))
            block[int(argv[3], 0)] ^= 0x01
            write_block(argv[2], bytes(block), off)
        return 0
    if cmd in ("set-incompat", "set-ro-compat") and len(argv) == 4:
        field = 0x018 if cmd == "set-incompat" else 0x0B0
        for off in copies_with_magic(argv[2], "all"):
            block = bytearray(read_block(argv[2], off))
            (flags,) = struct.unpack_from("<Q", block, field)
            struct.pack_into("<Q", block, field, flags | 1 << int(argv[3]))
            struct.pack_into("<I", block, 0x00C, block_crc(bytes(block)))
            write_block(argv[2], bytes(block), off)
        return 0
    if cmd == "save" and len(argv) == 4:
        with open(argv[3], "wb") as f:
            f.write(read_block(argv[2], SB_OFFSET, 2 * SB_SIZE))
        return 0
    if cmd == "restore" and len(argv) == 4:
        with open(argv[3], "rb") as f:
            write_block(argv[2], f.read())
        return 0
    if cmd == "gpt" and len(argv) == 3:
        gpt(argv[2])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
