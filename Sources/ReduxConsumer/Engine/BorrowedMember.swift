/// A noncopyable view of one slot of a group's member list (`SlotList.Entry` of a
/// ``ConsumerCallback``), for calling a callback where it is stored.
///
/// Calling a callback copied out of the list costs an atomic retain and release of its closure's
/// context per call, about half of what delivering a member costs. Through this view the delivery
/// loop borrows the closure instead: Swift may copy a copyable value at any read, but never a
/// noncopyable one, so a `switch` over a borrowed view binds the closure in place. Whoever lends
/// a view keeps its callback alive until the call returns: the delivery loop keeps a copy of the
/// list's buffer for its whole length (see ``TypedGroup/deliverEach(state:drain:level:)``), however
/// the callbacks change the list meanwhile; a member called from a copy of its callback owns the
/// view it builds around that copy.
///
/// Same stored properties, same cases with the same payloads in the same order as the types it
/// views, so the same layout; ``matchesLayout`` checks the sizes in debug builds and
/// `BorrowedMemberTests` checks that every case reads back as itself.
@usableFromInline
struct BorrowedEntry<State: Sendable, Value: Sendable>: ~Copyable {
    @usableFromInline let identifier: UInt64
    @usableFromInline let element: BorrowedCallback<State, Value>?

    /// A slot of its own (a member called from a copy of its callback).
    @inlinable
    init(identifier: UInt64, element: consuming BorrowedCallback<State, Value>?) {
        self.identifier = identifier
        self.element = element
    }

    /// Whether this view has the size, stride and alignment of the slot it views.
    @inlinable
    static var matchesLayout: Bool {
        typealias Viewed = SlotList<ConsumerCallback<State, Value>>.Entry
        return MemoryLayout<Self>.size == MemoryLayout<Viewed>.size
            && MemoryLayout<Self>.stride == MemoryLayout<Viewed>.stride
            && MemoryLayout<Self>.alignment == MemoryLayout<Viewed>.alignment
            && MemoryLayout<BorrowedCallback<State, Value>?>.size
                == MemoryLayout<ConsumerCallback<State, Value>?>.size
    }
}

/// ``ConsumerCallback``'s cases, noncopyable: the type of a group's copy of its sole member's
/// callback (``TypedGroup/soleCallback``), called where it is stored, and of the view of a slot
/// (``BorrowedEntry``). Keep the two in step: same cases, same payloads, same order.
@usableFromInline
enum BorrowedCallback<State: Sendable, Value: Sendable>: ~Copyable {
    case change(@Sendable (_ old: Value, _ new: Value) -> Void)
    case value(@Sendable (_ new: Value) -> Void)
    case changeInState(@Sendable (_ old: Value, _ new: Value, _ state: State) -> Void)
    case isolated(@Sendable (_ gate: DeliveryGate, _ member: UInt64) async -> Void)
}

extension BorrowedCallback {
    /// A noncopyable copy of `callback` (the closure is shared, not copied).
    @inlinable
    init(_ callback: ConsumerCallback<State, Value>) {
        switch callback {
        case .change(let callback): self = .change(callback)
        case .value(let callback): self = .value(callback)
        case .changeInState(let callback): self = .changeInState(callback)
        case .isolated(let callback): self = .isolated(callback)
        }
    }
}
