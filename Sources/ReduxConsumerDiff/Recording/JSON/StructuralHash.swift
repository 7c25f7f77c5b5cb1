/// A 64-bit hash of a value's `Encodable` structure, the same in every process and on every
/// platform: the sink behind ``StateHash/structural``.
///
/// Unlike `Hasher`, it has no per-process seed. Scalars hash with a tag for their kind (so `1`,
/// `"1"` and `true` differ; `Int` and `UInt8` holding the same number agree, as they do in JSON),
/// strings with FNV-1a over their UTF-8 bytes, and every combination goes through SplitMix64's
/// finalizer. Arrays combine their elements in order; objects, sets and dictionaries combine their
/// members by a wrapping sum, so the order in which they were encoded (which for a `Dictionary` or
/// a `Set` changes from process to process) does not matter, and neither does the declaration
/// order of a struct's properties.
///
/// It is not a cryptographic hash: it detects accidental divergence, with a chance of a collision
/// of about 2⁻⁶⁴ per comparison.
final class StructuralHash: EncodingSink {
    var distinguishesUnorderedCollections: Bool { true }

    /// The hash of the last complete top-level value.
    private(set) var result: UInt64 = 0
    // `@exclusivity(unchecked)`: only this class's methods touch the open containers, and none of
    // them calls out while it holds an access; the sink is fed by the one `EncodingStream` of its
    // `HashScratch`, whose debug builds stop at a second value encoded at the same time.

    /// The innermost open container, outside `enclosing`: folding a value in touches no array.
    @exclusivity(unchecked) private var current = Accumulator(tag: 0)
    /// The number of open containers, `current` included.
    @exclusivity(unchecked) private var depth = 0
    /// The open containers around `current`, outermost first.
    @exclusivity(unchecked) private var enclosing: [Accumulator] = []

    init() {}

    private struct Accumulator {
        let tag: UInt64
        var value: UInt64 = 0
        var count: UInt64 = 0
        var keyHash: UInt64 = 0
    }

    private static let objectTag: UInt64 = 0x6f62_6a65_6374_0001
    private static let arrayTag: UInt64 = 0x6172_7261_7900_0002
    private static let unorderedTag: UInt64 = 0x756e_6f72_6465_0003
    private static let nullTag: UInt64 = 0x6e75_6c6c_0000_0004
    private static let boolTag: UInt64 = 0x626f_6f6c_0000_0005
    private static let integerTag: UInt64 = 0x696e_7400_0000_0006
    private static let largeUnsignedTag: UInt64 = 0x7569_6e74_0000_0007
    private static let numberTag: UInt64 = 0x6e75_6d62_6572_0008
    private static let stringTag: UInt64 = 0x7374_7269_6e67_0009

    /// Forgets any partial value, keeping the storage of the open containers.
    func reset() {
        if !enclosing.isEmpty {
            enclosing.removeAll(keepingCapacity: true)
        }
        depth = 0
        result = 0
    }

    func beginObject() { begin(Accumulator(tag: Self.objectTag)) }

    func key(_ key: String, index: Int) {
        current.keyHash = Self.hash(key)
    }

    func endObject() { end() }

    func beginArray(isUnordered: Bool) {
        begin(Accumulator(tag: isUnordered ? Self.unorderedTag : Self.arrayTag))
    }

    func element(index: Int) {}

    func endArray(isUnordered: Bool) { end() }

    func null() { add(Self.mix(Self.nullTag)) }

    func bool(_ value: Bool) { add(Self.mix(Self.boolTag &+ (value ? 1 : 0))) }

    func string(_ value: String) { add(Self.hash(value)) }

    func integer(_ value: Int64) {
        add(Self.mix(Self.integerTag ^ Self.mix(UInt64(bitPattern: value))))
    }

    func unsignedInteger(_ value: UInt64) {
        if value <= UInt64(Int64.max) {
            integer(Int64(value))
        } else {
            add(Self.mix(Self.largeUnsignedTag ^ Self.mix(value)))
        }
    }

    func double(_ value: Double) throws(EncodingSinkError) {
        // -0.0 == 0.0, so they hash alike; every NaN hashes alike.
        let bits = value == 0 ? 0 : (value.isNaN ? Double.nan.bitPattern : value.bitPattern)
        add(Self.mix(Self.numberTag ^ Self.mix(bits)))
    }

    func float(_ value: Float) throws(EncodingSinkError) {
        try double(Double(value))
    }

    /// Folds a finished value into the innermost open container, or makes it the result.
    private func add(_ hash: UInt64) {
        guard depth > 0 else {
            result = hash
            return
        }
        switch current.tag {
        case Self.objectTag:
            current.value &+= Self.mix(current.keyHash ^ Self.mix(hash &+ Self.objectTag))
        case Self.arrayTag:
            current.value = Self.mix(current.value &+ hash &+ Self.arrayTag)
        default:
            current.value &+= Self.mix(hash ^ Self.unorderedTag)
        }
        current.count &+= 1
    }

    private func begin(_ container: Accumulator) {
        if depth > 0 {
            enclosing.append(current)
        }
        current = container
        depth += 1
    }

    private func end() {
        let finished = current
        depth -= 1
        if depth > 0 {
            current = enclosing.removeLast()
        }
        add(Self.mix(finished.tag ^ finished.value ^ Self.mix(finished.count)))
    }

    /// SplitMix64's finalizer: a bijection that spreads every input bit over the output.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 30
        x &*= 0xbf58_476d_1ce4_e5b9
        x ^= x >> 27
        x &*= 0x94d0_49bb_1331_11eb
        x ^= x >> 31
        return x
    }

    /// FNV-1a over the string's UTF-8 bytes, tagged and mixed.
    static func hash(_ string: String) -> UInt64 {
        // Native strings, small or not, are contiguous UTF-8; reading them in place spares the
        // copy (and its retain and release) that `withUTF8` needs.
        let fnv = string.utf8.withContiguousStorageIfAvailable(fnv1a) ?? fnv1a(string.utf8)
        return mix(stringTag ^ fnv)
    }

    private static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var fnv: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            fnv ^= UInt64(byte)
            fnv &*= 0x0000_0100_0000_01b3
        }
        return fnv
    }
}
