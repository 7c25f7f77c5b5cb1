import ReduxConsumer

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// The actions a reader decoded from its most recent small payloads, found again by their bytes:
/// a session repeats a few payloads (`{"increment":{}}`, `{"select":{"_0":3}}`) thousands of times,
/// and decoding one through `Codable` costs several times more than hashing and comparing its
/// bytes.
///
/// Reusing a decoded action is sound because decoding is a pure function of the payload (see
/// ``ActionCodecs``: a replay that is not deterministic could not be verified anyway), and only
/// actions that neither are nor hold an object are kept, so a replay never dispatches one object
/// twice. Only payloads the
/// parser found to be exactly one complete JSON value are stored, so bytes that match one are that
/// same value.
///
/// A hash table of at most ``capacity`` payloads of at most ``maxPayloadLength`` bytes, emptied
/// when it is full: bounded memory, one hash and usually one comparison per lookup. A session
/// that repeats up to ``capacity`` payloads (however they are interleaved) decodes each once; one
/// that cycles through more decodes them again after each emptying, never worse than decoding
/// every line. (A direct-mapped table of 256 slots decoded one line in nine again in a session of
/// 106 payloads, whose slots collided.)
final class DecodedPayloads {
    /// The longest payload kept; longer ones are decoded every time.
    static let maxPayloadLength = 256
    /// The number of payloads kept before the table is emptied.
    static let capacity = 256
    /// Twice ``capacity``, a power of two: probes stay short.
    private static let slotCount = 512

    /// A class, so reading a slot costs one retain rather than one per member.
    private final class Entry {
        let codec: ActionCodecs.Codec
        let hash: UInt64
        let bytes: [UInt8]
        let action: any Action

        init(codec: ActionCodecs.Codec, hash: UInt64, bytes: [UInt8], action: any Action) {
            self.codec = codec
            self.hash = hash
            self.bytes = bytes
            self.action = action
        }
    }

    // `@exclusivity(unchecked)`: only this class's methods touch the table, and none calls out while
    // it holds an access; the table belongs to one `RecordingReader`, which is not `Sendable`.
    @exclusivity(unchecked) private var slots = [Entry?](repeating: nil, count: DecodedPayloads.slotCount)
    @exclusivity(unchecked) private var count = 0

    init() {}

    /// The action decoded before from the payload at `payload` of `bytes`, by the codec whose name
    /// is at `name` of `bytes`, or `nil`.
    func action(named name: Range<Int>, payload: Range<Int>, in bytes: [UInt8]) -> (any Action)? {
        guard payload.count <= Self.maxPayloadLength else { return nil }
        let hash = Self.hash(bytes, payload)
        var slot = Self.slot(for: hash)
        while let entry = slots[slot] {
            if entry.hash == hash, entry.bytes.count == payload.count, entry.codec.nameBytes.count == name.count,
                Self.matches(entry, name: name, payload: payload, in: bytes)
            {
                return entry.action
            }
            slot = (slot + 1) & (Self.slotCount - 1)
        }
        return nil
    }

    /// Keeps `action`, decoded by `codec` from the complete JSON value at `range` of `bytes`.
    func keep(_ action: any Action, decodedBy codec: ActionCodecs.Codec, from bytes: [UInt8], in range: Range<Int>) {
        guard range.count <= Self.maxPayloadLength, !Self.holdsObject(action) else { return }
        if count == Self.capacity {
            for index in slots.indices { slots[index] = nil }
            count = 0
        }
        let hash = Self.hash(bytes, range)
        var slot = Self.slot(for: hash)
        while slots[slot] != nil {
            slot = (slot + 1) & (Self.slotCount - 1)
        }
        slots[slot] = Entry(codec: codec, hash: hash, bytes: Array(bytes[range]), action: action)
        count += 1
    }

    /// Whether `value` is an object or holds one anywhere inside: such an action is decoded again
    /// for every line, so that no two actions of a replay share an object the session never shared.
    ///
    /// - Complexity: Linear in the parts of the value, which a short payload keeps few.
    static func holdsObject(_ value: Any) -> Bool {
        var pending = [value]
        while let next = pending.popLast() {
            if type(of: next) is AnyClass {
                return true
            }
            pending += Mirror(reflecting: next).children.map(\.value)
        }
        return false
    }

    private static func matches(_ entry: Entry, name: Range<Int>, payload: Range<Int>, in bytes: [UInt8]) -> Bool {
        // The pointers stay in the closures; `name` and `payload` lie inside `bytes` (the scanner
        // found them there), and the caller checked that `entry` has their lengths.
        assert(entry.bytes.count == payload.count && entry.codec.nameBytes.count == name.count)
        assert(name.upperBound <= bytes.count && payload.upperBound <= bytes.count)
        return bytes.withUnsafeBufferPointer { line in
            entry.bytes.withUnsafeBufferPointer { stored in
                entry.codec.nameBytes.withUnsafeBufferPointer { storedName in
                    memcmp(storedName.baseAddress!, line.baseAddress! + name.lowerBound, name.count) == 0
                        && (payload.isEmpty
                            || memcmp(stored.baseAddress!, line.baseAddress! + payload.lowerBound, payload.count) == 0)
                }
            }
        }
    }

    private static func slot(for hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash) & (slotCount - 1)
    }

    /// The bytes eight at a time, then the rest one at a time (FNV-1a), then MurmurHash3's
    /// finalizer, so payloads that differ in their last byte (`"s1"`, `"s2"`) get different slots.
    private static func hash(_ bytes: [UInt8], _ range: Range<Int>) -> UInt64 {
        bytes.withUnsafeBufferPointer { buffer in
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(range.count)
            guard let base = buffer.baseAddress, !range.isEmpty else { return hash }
            assert(range.upperBound <= buffer.count, "DecodedPayloads: a payload outside its line")
            var offset = range.lowerBound
            while offset + 8 <= range.upperBound {
                // `offset + 8 <= range.upperBound <= buffer.count`: the word is inside the buffer.
                let word = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
                hash = (hash ^ UInt64(littleEndian: word)) &* 0x9E37_79B9_7F4A_7C15
                hash ^= hash >> 32
                offset += 8
            }
            while offset < range.upperBound {
                hash = (hash ^ UInt64(base[offset])) &* 0x0000_0100_0000_01B3
                offset += 1
            }
            hash ^= hash >> 33
            hash &*= 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 33
            return hash
        }
    }
}
