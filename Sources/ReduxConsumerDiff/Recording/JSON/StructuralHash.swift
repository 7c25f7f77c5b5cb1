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
    // `@exclusivity(unchecked)`: only this class's methods touch `stack`, on the one thread that
    // owns the sink, and none of them calls out while it holds an access.
    @exclusivity(unchecked) private var stack: [Accumulator] = []

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

    /// Forgets any partial value, keeping the stack's storage.
    func reset() {
        stack.removeAll(keepingCapacity: true)
        result = 0
    }

    func beginObject() { stack.append(Accumulator(tag: Self.objectTag)) }

    func key(_ key: String, index: Int) {
        stack[stack.count - 1].keyHash = Self.hash(key)
    }

    func endObject() { end() }

    func beginArray(isUnordered: Bool) {
        stack.append(Accumulator(tag: isUnordered ? Self.unorderedTag : Self.arrayTag))
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
        guard !stack.isEmpty else {
            result = hash
            return
        }
        let top = stack.count - 1
        switch stack[top].tag {
        case Self.objectTag:
            stack[top].value &+= Self.mix(stack[top].keyHash ^ Self.mix(hash &+ Self.objectTag))
        case Self.arrayTag:
            stack[top].value = Self.mix(stack[top].value &+ hash &+ Self.arrayTag)
        default:
            stack[top].value &+= Self.mix(hash ^ Self.unorderedTag)
        }
        stack[top].count &+= 1
    }

    private func end() {
        let finished = stack.removeLast()
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
        var string = string
        let fnv = string.withUTF8 { bytes in
            var fnv: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes {
                fnv ^= UInt64(byte)
                fnv &*= 0x0000_0100_0000_01b3
            }
            return fnv
        }
        return mix(stringTag ^ fnv)
    }
}
