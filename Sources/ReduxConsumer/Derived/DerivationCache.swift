/// One engine's memory of derived values (see ``Derived``): a memo per derived value, shared by the
/// evaluation that watches it and by every derived value that reads it, so each is computed at most
/// once per pass, and again only when one of its inputs changed.
///
/// Confined to its engine's drain, like the engine.
@usableFromInline
final class DerivationCache {
    /// Advanced before every pass, and before every admission that reads the state: a memo
    /// computed in this pass is reused as it is.
    @usableFromInline private(set) var pass: UInt64 = 1
    /// Memos by definition, weakly: a memo lives as long as an evaluation or another memo uses it.
    private var memos: [ObjectIdentifier: Weak] = [:]

    private struct Weak {
        weak var memo: AnyObject?
    }

    init() {}

    /// Starts a pass: derived values are read afresh (and recomputed if their inputs changed).
    func beginPass() {
        pass &+= 1
    }

    /// The memo of `definition` in this engine, made with `make` if there is none.
    @usableFromInline
    func memo(for definition: AnyObject, make: () -> AnyObject) -> AnyObject {
        let key = ObjectIdentifier(definition)
        if let memo = memos[key]?.memo {
            return memo
        }
        let memo = make()
        if memos.count > 64, memos.count.isMultiple(of: 64) {
            memos = memos.filter { $0.value.memo != nil }
        }
        memos[key] = Weak(memo: memo)
        return memo
    }
}

/// The last inputs and output of one derived value in one engine.
@usableFromInline
final class DerivedMemo<Inputs, Value> {
    /// The pass `output` was last checked in.
    @usableFromInline var pass: UInt64 = 0
    @usableFromInline var inputs: Inputs?
    @usableFromInline var output: Value?
    /// The memos of the derived values this one reads, kept alive with it.
    @usableFromInline var inputMemos: [AnyObject?]

    @inlinable
    init(inputCount: Int) {
        inputMemos = Array(repeating: nil, count: inputCount)
    }
}
