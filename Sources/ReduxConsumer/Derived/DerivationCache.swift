/// One engine's memory of derived values (see ``Derived``): a memo per derived value, shared by the
/// evaluation that watches it and by every derived value that reads it, so each is computed at most
/// once per pass, and again only when one of its inputs changed.
///
/// Confined to its engine's drain, like the engine.
@usableFromInline
final class DerivationCache {
    // `@exclusivity(unchecked)` on `pass`: read by every derived read; the cache is confined to
    // its engine's drain (the engine's entry points check it in debug builds) and no access spans
    // user code, so accesses never overlap.

    /// Advanced before every pass, and before every admission that reads the state: a memo
    /// computed in this pass is reused as it is.
    @exclusivity(unchecked) @usableFromInline private(set) var pass: UInt64 = 1
    /// Memos by definition, weakly: a memo lives as long as an evaluation or another memo uses it.
    private var memos: [ObjectIdentifier: Entry] = [:]
    /// The count at which the entries of memos gone are pruned next: twice what the last pruning
    /// left (64 at least), so pruning costs O(1) per memo made, amortised, and the table holds at
    /// most about twice the live memos.
    private var pruneAt = 64

    private struct Entry {
        /// Weak, like the memo: the cache keeps no definition alive (its function may capture
        /// anything, the store included, which would make a cycle). A definition gone and its
        /// identifier, the key, reused by another one (whose memo has other types) is caught by
        /// the identity check on lookup.
        weak var definition: AnyObject?
        weak var memo: AnyObject?
    }

    init() {}

    /// How many memos the cache has entries for, the entries of memos gone included: for tests.
    var entryCount: Int { memos.count }

    /// Starts a pass: derived values are read afresh (and recomputed if their inputs changed).
    func beginPass() {
        pass &+= 1
    }

    /// The memo of `definition` in this engine, made with `make` if there is none.
    @usableFromInline
    func memo(for definition: AnyObject, make: () -> AnyObject) -> AnyObject {
        let key = ObjectIdentifier(definition)
        if let entry = memos[key], entry.definition === definition, let memo = entry.memo {
            return memo
        }
        // `make` may look up the memos of the definition's inputs: no access to `memos` is open.
        let memo = make()
        if memos.count >= pruneAt {
            memos = memos.filter { $0.value.memo != nil && $0.value.definition != nil }
            pruneAt = Swift.max(64, 2 * memos.count)
        }
        memos[key] = Entry(definition: definition, memo: memo)
        return memo
    }
}

/// The last output of one derived value in one engine, and the pass it was last brought up to
/// date in: what a read needs, without the types of the value's inputs.
///
/// Made with its first output (see ``DerivedInputsMemo``), so `output` is never missing.
@usableFromInline
class DerivedMemo<Value> {
    // `@exclusivity(unchecked)` on both: read by every derived read; a memo is reached only from
    // its engine's ``DerivationCache`` (confined to the engine's drain), and no access spans the
    // derivation function (its result is computed first, then stored).

    /// The pass `output` was last checked in.
    @exclusivity(unchecked) @usableFromInline final var pass: UInt64
    @exclusivity(unchecked) @usableFromInline final var output: Value

    @inlinable
    init(pass: UInt64, output: Value) {
        self.pass = pass
        self.output = output
    }
}

/// The last inputs and output of one derived value in one engine.
@usableFromInline
final class DerivedInputsMemo<Inputs, Value>: DerivedMemo<Value> {
    /// The memos of the inputs that are derived values with inputs (`nil` for a key path), found
    /// once when this memo is made, and kept alive with it.
    @usableFromInline let inputMemos: [AnyObject?]
    /// `inputMemos`, unretained: what a refresh reads (see ``Derived``'s reads for why).
    /// `inputMemos` holds each of them for as long as this memo lives.
    @usableFromInline let unretainedInputMemos: [Unmanaged<AnyObject>?]
    /// The inputs `output` was computed from (see ``DerivedMemo`` for `@exclusivity`).
    @exclusivity(unchecked) @usableFromInline var inputs: Inputs

    @inlinable
    init(pass: UInt64, inputs: Inputs, output: Value, inputMemos: [AnyObject?]) {
        self.inputMemos = inputMemos
        unretainedInputMemos = inputMemos.map { $0.map(Unmanaged.passUnretained) }
        self.inputs = inputs
        super.init(pass: pass, output: output)
    }
}
