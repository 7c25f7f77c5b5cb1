#if !canImport(Darwin)
    // The standard library's reflection of stored fields (`_forEachField`): on Linux and the other
    // platforms whose toolchain ships it. Apple SDKs do not promise it (and before Swift 5.9 it
    // trapped on types built without field names), so there the store keeps the whole copy.
    @_spi(Reflection) import Swift
#endif

/// Where a state struct keeps its references, so that publishing the state copies only the fields
/// that changed.
///
/// A publish makes the published state equal to the working one. Copying the whole struct retains
/// every reference it holds (arrays, strings, objects), and releasing the state it replaces
/// releases them all again: two atomic operations per reference per action, for fields that
/// mostly did not change. With the layout, a publish compares the bytes of each field that holds
/// references, sets aside only those that differ, copies the whole struct's bytes at once, then
/// gives each changed field its own copy (its retains). A field whose bytes did not change
/// already holds the same references in the published state, which keeps its own.
///
/// Learned from the runtime's reflection of the type's stored fields. Only for a struct whose
/// stored fields are all strong: a weak or unowned field is not what its type says it is (a
/// side-table reference, not an object reference), so such a state, and anything that is not a
/// struct, is copied whole.
struct StateLayout {
    /// A stored field that holds references, copied, moved and destroyed through its own type.
    struct Field {
        let offset: Int
        let size: Int
        let type: any FieldOperations.Type
    }

    /// What the layout knows, behind one pointer: every store keeps room for a layout, and most
    /// (a page for one request) never learn one, so it costs them one word, not six.
    private struct Storage {
        let size: Int
        let fields: UnsafeMutableBufferPointer<Field>
        let references: Range<Int>
        let changed: UnsafeMutablePointer<Int>
    }

    // Unsafe buffers, not arrays or a class: read on every publish, where either would cost a
    // retain and a release. Allocated in `init`, freed by `deallocate()` when the store goes; only
    // the drain's owner reads them (`StateLayoutTests` runs them against a model, and its
    // released-store test under the ASan run of `.ci/run` would report a leak or a double free).
    private let storage: UnsafeMutablePointer<Storage>

    /// The struct's size in bytes, copied at once by a publish.
    var size: Int { storage.pointee.size }
    /// The fields that hold references, by offset; the bytes elsewhere are plain data.
    var fields: UnsafeMutableBufferPointer<Field> { storage.pointee.fields }
    /// The bytes from the first field that holds references to the end of the last.
    var references: Range<Int> { storage.pointee.references }
    /// The indices of the fields the last publish set aside (room for all of them).
    // Written by `findChanges`, read by the `publish` and `release` that follow it on the same
    // thread; a publish nested in that release is queued instead (`Drain.isReleasingPublished`),
    // which `StateLayoutTests.aDeinitThatReducesDuringTheReleaseIsQueued` checks.
    private var changed: UnsafeMutablePointer<Int> { storage.pointee.changed }

    /// The layout of `State`, or `nil` when a publish must copy it whole (not a struct, a weak or
    /// unowned field, or a runtime without the reflection it needs).
    ///
    /// - Complexity: About a microsecond per stored field (the runtime reads each field's type
    ///   from its mangled name); the store learns it once, after many publishes.
    init?<State>(of state: State.Type) {
        #if canImport(Darwin)
            return nil
        #else
            // Bitwise-takable: a state holding an Objective-C weak reference or a C++ value with a
            // copy constructor is not, and its bytes must not be copied at once.
            guard _isBitwiseTakable(State.self) else { return nil }
            // The root's kind is the kind of a field holding it.
            var isStruct = false
            _forEachField(of: FieldHolder<State>.self) { _, _, _, kind in
                isStruct = kind == .struct
                return true
            }
            // `_forEachFieldWithKeyPath` refuses, unlike `_forEachField`, a field that is not strong.
            guard isStruct, _forEachFieldWithKeyPath(of: State.self, body: { _, _ in true }) else { return nil }
            var found: [Field] = []
            var isReadable = true
            let complete = _forEachField(of: State.self) { _, offset, type, _ in
                // The runtime reports a field whose type it cannot read as `()`: its references
                // would be unknown.
                if type == Void.self { isReadable = false }
                let operations = fieldOperations(of: type)
                if !operations.isPlainData {
                    found.append(Field(offset: offset, size: operations.size, type: operations))
                }
                return true
            }
            // No fields listed for a type that holds references: its module was built without
            // reflection metadata, and its references are somewhere a layout does not know.
            guard complete, isReadable, !found.isEmpty || _isPOD(State.self) else { return nil }
            found.sort { $0.offset < $1.offset }
            // Checked in every build, once per store: a layout that disagrees with the struct's
            // size or with its key paths' offsets (an independent computation) is not used.
            guard Self.isConsistent(found, size: MemoryLayout<State>.size),
                Self.matchesKeyPaths(found, of: State.self)
            else {
                assertionFailure("a state's field layout disagrees with its size or its key paths")
                return nil
            }
            let fields = UnsafeMutableBufferPointer<Field>.allocate(capacity: found.count)
            _ = fields.initialize(from: found)
            storage = .allocate(capacity: 1)
            storage.initialize(
                to: Storage(
                    size: MemoryLayout<State>.size,
                    fields: fields,
                    references: (found.first?.offset ?? 0)..<(found.last.map { $0.offset + $0.size } ?? 0),
                    changed: .allocate(capacity: max(found.count, 1))))
        #endif
    }

    /// Frees the layout's buffers; the store calls it once, when it goes.
    func deallocate() {
        fields.deallocate()
        changed.deallocate()
        storage.deallocate()
    }

    /// Finds the fields whose bytes differ between `working` and `published`, and returns how
    /// many: the drain's owner, the one writer of both, calls it before taking the lock, and
    /// ``publish(_:over:settingAsideIn:changed:)`` under it. With none, that publish leaves nothing
    /// to release, so it may share the lock round trip that lets the drain go.
    func findChanges(_ working: UnsafeRawPointer, from published: UnsafeRawPointer) -> Int {
        // Most actions change no reference at all: one comparison of the bytes from the first
        // such field to the end of the last says so.
        if Self.bytesEqual(working + references.lowerBound, published + references.lowerBound, count: references.count)
        {
            return 0
        }
        var count = 0
        for index in 0..<fields.count {
            let field = fields[index]
            if !Self.bytesEqual(working + field.offset, published + field.offset, count: field.size) {
                changed[count] = index
                count += 1
            }
        }
        return count
    }

    /// Makes `published` equal to `working`, under the drain's lock: moves, copies and retains
    /// only (no user code). The old values of the `changed` fields found by
    /// ``findChanges(_:from:)`` go to the same offsets in `retired` (uninitialised memory of the
    /// state's size), for ``release(_:count:)`` after the lock.
    func publish(
        _ working: UnsafeRawPointer,
        over published: UnsafeMutableRawPointer,
        settingAsideIn retired: UnsafeMutableRawPointer,
        changed count: Int
    ) {
        for position in 0..<count {
            let field = fields[changed[position]]
            field.type.move(from: published + field.offset, to: retired + field.offset)
        }
        // Unchanged fields get the bits they already hold; changed ones, bits of values they do
        // not own yet, replaced by a copy of their own below.
        published.copyMemory(from: working, byteCount: size)
        for position in 0..<count {
            let field = fields[changed[position]]
            field.type.copy(from: working + field.offset, to: published + field.offset)
        }
    }

    /// Destroys the `count` old values ``publish(_:over:settingAsideIn:changed:)`` set aside, after the
    /// lock: a `deinit` they run is user code.
    func release(_ retired: UnsafeMutableRawPointer, count: Int) {
        for position in 0..<count {
            let field = fields[changed[position]]
            field.type.destroy(retired + field.offset)
        }
    }

    @inline(__always)
    private static func bytesEqual(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, count: Int) -> Bool {
        let words = count / 8
        var word = 0
        while word < words {
            if lhs.loadUnaligned(fromByteOffset: word &* 8, as: UInt64.self)
                != rhs.loadUnaligned(fromByteOffset: word &* 8, as: UInt64.self)
            {
                return false
            }
            word &+= 1
        }
        var byte = words &* 8
        while byte < count {
            if lhs.load(fromByteOffset: byte, as: UInt8.self) != rhs.load(fromByteOffset: byte, as: UInt8.self) {
                return false
            }
            byte &+= 1
        }
        return true
    }

    /// Whether the fields are in order, apart, and inside the struct.
    private static func isConsistent(_ fields: [Field], size: Int) -> Bool {
        var end = 0
        for field in fields {
            guard field.offset >= end, field.size > 0 else { return false }
            end = field.offset + field.size
        }
        return end <= size
    }

    #if !canImport(Darwin)
        /// Whether every field's offset is the offset of one of the struct's stored-property key
        /// paths.
        private static func matchesKeyPaths<State>(_ fields: [Field], of state: State.Type) -> Bool {
            var offsets: Set<Int> = []
            let complete = _forEachFieldWithKeyPath(of: State.self) { _, keyPath in
                if let offset = MemoryLayout<State>.offset(of: keyPath) {
                    offsets.insert(offset)
                }
                return true
            }
            return complete && fields.allSatisfy { offsets.contains($0.offset) }
        }
    #endif
}

#if !canImport(Darwin)
    /// The operations of a field of type `type`.
    private func fieldOperations(of type: any Any.Type) -> any FieldOperations.Type {
        func operations<Value>(_: Value.Type) -> any FieldOperations.Type { TypedField<Value>.self }
        return _openExistential(type, do: operations)
    }

    /// Holds a value as its only field: its reflection tells the value's kind.
    private struct FieldHolder<Value> {
        var value: Value
    }
#endif

/// What a publish does to one field of a state, through the field's own type.
protocol FieldOperations {
    /// Whether the field's type holds no references (its bytes are its whole value).
    static var isPlainData: Bool { get }
    /// The field's size in bytes.
    static var size: Int { get }
    /// Initialises `destination` (uninitialised) with a copy of the value at `source`.
    static func copy(from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer)
    /// Moves the value at `source` to `destination` (uninitialised), leaving `source`
    /// uninitialised.
    static func move(from source: UnsafeMutableRawPointer, to destination: UnsafeMutableRawPointer)
    /// Destroys the value at `address`.
    static func destroy(_ address: UnsafeMutableRawPointer)
}

/// ``FieldOperations`` of a field of type `Value`.
private enum TypedField<Value>: FieldOperations {
    static var isPlainData: Bool { _isPOD(Value.self) }
    static var size: Int { MemoryLayout<Value>.size }

    static func copy(from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer) {
        destination.assumingMemoryBound(to: Value.self)
            .initialize(from: source.assumingMemoryBound(to: Value.self), count: 1)
    }

    static func move(from source: UnsafeMutableRawPointer, to destination: UnsafeMutableRawPointer) {
        destination.assumingMemoryBound(to: Value.self)
            .moveInitialize(from: source.assumingMemoryBound(to: Value.self), count: 1)
    }

    static func destroy(_ address: UnsafeMutableRawPointer) {
        address.assumingMemoryBound(to: Value.self).deinitialize(count: 1)
    }
}
