import ReduxConsumerAtomics

/// The typed half of a ``MemberGroup``: one consumer's members on one selection, their callbacks
/// and the cell they read `old` and `new` from.
///
/// Made by `@inlinable` code when a consumer is added, so the closures it hands the engine
/// (evaluate and deliver) are compiled in the caller's module for its concrete `State` and
/// `Value`: comparing an `Int` is a compare instruction, not a call through a witness table.
/// Everything else the engine asks of it goes through ``GroupMembers``.
///
/// Confined to the host drain of its engine.
@usableFromInline
final class TypedGroup<State: Sendable, Value: Sendable>: @unchecked Sendable {
    // @unchecked: confined to its engine's drain, which the engine's entry points check in debug
    // builds.

    // `@exclusivity(unchecked)`: read for every callback; confinement rules out accesses from two
    // threads, and no write overlaps another access: the one access that spans a user callback is
    // the read of `soleCallback` while it is called, and it is written only when no call of it is
    // under way (`noteSoleMember` checks `soleCalls`; `BorrowedMemberTests` fails, optimized, if
    // it were replaced during its call).

    // What a delivery reads comes first, in 64 bytes with the object's header (stored properties
    // are laid out in declaration order): a group of one member is delivered from this object's
    // first cache line alone. The member list follows; the catch-up tables, rarely used, come last.

    /// The consumer's registration, as drains name it (see ``Registration/tag``).
    @usableFromInline let tag: UInt
    /// Where `old` and `new` come from: the evaluation's shared cell while the group is attached,
    /// a cell of its own while it is not.
    @exclusivity(unchecked) @usableFromInline var cell: ValueCell<Value>
    /// A copy of the callback in `members`' only slot when the list has exactly one slot and it is
    /// live, and its identifier: a group of one member (a consumer per page watching one global
    /// field, a closure selector) is delivered without reading the list's buffer, one cache line
    /// less per consumer. Kept in step with `members` by its observer, except while it is being
    /// called (see `soleCalls`).
    ///
    /// Noncopyable, so that a delivery calls it where it is stored, borrowed: a copy would cost an
    /// atomic retain and release of the closure's context per call.
    @exclusivity(unchecked) @usableFromInline var soleIdentifier: UInt64 = 0
    @exclusivity(unchecked) @usableFromInline var soleCallback: BorrowedCallback<State, Value>?
    /// Whether members not on an actor are called in place (the consumer has no queue): read by
    /// the delivery loop instead of `routes.queue`, which sits in another object.
    @usableFromInline let callsInPlace: Bool
    /// Set when the group leaves its engine: a delivery loop in progress stops at once.
    @exclusivity(unchecked) @usableFromInline var isSilenced = false
    /// While the group comes back (see ``GroupMembers/beginCatchUp(changed:state:evaluate:cache:)``):
    /// whether members that were behind hear their own change, and whether the others hear the
    /// group's change (`catchUpChanged`).
    @exclusivity(unchecked) @usableFromInline var isCatchingUp = false
    @exclusivity(unchecked) @usableFromInline var catchUpChanged = false
    /// Calls of `soleCallback` under way (a callback may feed its consumer again): while there is
    /// one, `soleCallback` is borrowed and must not change, so a change of the list only sets
    /// `soleIsStale`, and the last call to return brings the copy in step.
    @exclusivity(unchecked) @usableFromInline var soleCalls: UInt8 = 0
    @exclusivity(unchecked) @usableFromInline var soleIsStale = false
    /// The members' callbacks, by member identifier.
    @exclusivity(unchecked) @usableFromInline var members = SlotList<ConsumerCallback<State, Value>>() {
        didSet { noteSoleMember() }
    }
    /// Where callbacks that are not called in place are posted: the consumer's queue, its actors.
    @usableFromInline let routes: DeliveryRoutes
    /// How the group's evaluation compares values (`==` or the members' `isEqual`), or `nil` when
    /// it fires for every state (`.pulse`): a posted change merged with later ones is dropped when
    /// its merged values are the same (see ``PendingChange``).
    @usableFromInline let isSame: (@Sendable (Value, Value) -> Bool)?
    /// Members that fell behind the cell, with the value each heard last: a change reached the
    /// group but not them (the consumer left in the middle of a delivery, or another thread was
    /// removing it). When the group comes back, each is compared with its own value.
    @exclusivity(unchecked) @usableFromInline var missed: [UInt64: Value] = [:]
    /// While the group comes back (see ``isCatchingUp``): what each member that was behind hears.
    @exclusivity(unchecked) @usableFromInline var catchUp: [UInt64: CatchUpChange] = [:]
    /// The rows of the shared node the group is attached to (see ``SoleCallRows``), where the group
    /// rewrites its own row after every change that could alter it; `nil` while it is not attached
    /// to one.
    @exclusivity(unchecked) @usableFromInline var rowsOfNode: TypedSoleCallRows<State, Value>?
    /// The group's order on that node (see ``MemberGroup/order``), which finds its row there.
    @exclusivity(unchecked) @usableFromInline var rowOrder: UInt64 = 0

    @inlinable
    init(cell: ValueCell<Value>, routes: DeliveryRoutes, tag: UInt, isSame: (@Sendable (Value, Value) -> Bool)?) {
        self.cell = cell
        self.routes = routes
        self.tag = tag
        self.isSame = isSame
        callsInPlace = routes.queue == nil
    }

    /// Calls (or posts) every live member present when the delivery starts, in identifier order,
    /// with the cell's `previous` and `last`; stops if the group is silenced meanwhile.
    @inlinable
    func deliverAll(state: UnsafeMutableRawPointer, drain: Drain) {
        let state = state.assumingMemoryBound(to: State.self)
        // While the sole callback is stale (a call of it is under way and the list changed), the
        // list itself is walked.
        if !soleIsStale {
            if hasSoleCallback {
                assert(
                    members.slotCount == 1 && members.identifier(atSlot: 0) == soleIdentifier
                        && members[slot: 0] != nil,
                    "a group's sole callback out of step with its member list")
                // One slot needs no iteration guard: a member added meanwhile lands after it, and
                // a compaction after a removal moves nothing still to be read.
                if !isSilenced {
                    callSoleMember(state: state, drain: drain, level: nil)
                }
                return
            }
            if members.slotCount == 1 {
                return  // its only slot is a hole
            }
        }
        assert(BorrowedEntry<State, Value>.matchesLayout, "BorrowedEntry out of step with SlotList.Entry")
        members.beginIteration()
        // The members are called one after another at one level: it is published once, and each
        // call names itself with two stores (see ``Drain/beginCalls()``).
        let level = drain.beginCalls()
        deliverEach(state: state, drain: drain, level: level)
        drain.endCalls(level)
        members.endIteration()
    }

    /// Calls the members of a list of several slots, at `level`, inside an iteration.
    @inlinable
    @inline(__always)
    func deliverEach(state: UnsafeMutablePointer<State>, drain: Drain, level: Drain.CallLevel) {
        let end = members.slotCount
        // Each callback is called where it is stored, borrowed (see ``BorrowedEntry``): this copy
        // of the list keeps its buffer, and so every callback in it, alive until the loop ends,
        // whatever the callbacks do to the list (the first removal meanwhile copies the list).
        // Only removals make holes, and an iteration never squeezes them out: while `holes` has
        // not moved, the copy's live slots are the list's.
        let entries = members.entries
        let holes = members.holes
        entries.withUnsafeBufferPointer { entries in
            var slot = 0
            while slot < end, !isSilenced {
                if _slowPath(members.holes != holes), members[slot: slot] == nil {
                    slot += 1
                    continue
                }
                let entry = entries.baseAddress.unsafelyUnwrapped + slot
                deliver(entry, slot: slot, state: state, drain: drain, level: level)
                slot += 1
            }
        }
    }

    /// Calls (or posts) the member in `slot` at `level`, its callback read from `entry`, a slot of
    /// a copy of the list that outlives the call: the callback is called borrowed, without a
    /// retain and a release of its own.
    @inlinable
    @inline(__always)
    func deliver(
        _ entry: UnsafePointer<SlotList<ConsumerCallback<State, Value>>.Entry>, slot: Int,
        state: UnsafeMutablePointer<State>, drain: Drain, level: Drain.CallLevel
    ) {
        guard callsInPlace, !isCatchingUp else {
            // Named at the next level, as a call made from inside a callback would be.
            deliverElsewhere(slot: slot, state: state, drain: drain)
            return
        }
        // The view has the slot's layout (asserted in `deliverAll`), and lives no longer than the
        // copy of the list the slot belongs to.
        entry.withMemoryRebound(to: BorrowedEntry<State, Value>.self, capacity: 1) { entry in
            call(entry.pointee, slot: slot, state: state, drain: drain, level: level)
        }
    }

    /// ``callSole(state:drain:level:)``, with the bookkeeping that keeps `soleCallback` in place
    /// while it runs.
    @inlinable
    @inline(__always)
    func callSoleMember(state: UnsafeMutablePointer<State>, drain: Drain, level: Drain.CallLevel?) {
        // Calls nest only through a consumer fed again from its own callback, which waits for
        // the pass in progress: one deep in practice, far from wrapping.
        assert(soleCalls < .max, "too many nested calls of a group's sole callback")
        soleCalls &+= 1
        callSole(state: state, drain: drain, level: level)
        soleCalls &-= 1
        if soleCalls == 0, soleIsStale { noteSoleMember() }
    }

    /// Calls the fired groups of a pass that fired one node (see ``MemberGroup/deliverGroups``),
    /// skipping those the pass skips and moving `cursor` on before each: a group of this type with
    /// a lone member called in place is called from this loop, at `level`; any other group
    /// through its own ``MemberGroup/deliverAll``. One loop for a node's consumers instead of a
    /// call through each group's closure: a store with a page per request calls each page's
    /// consumer of one global field like this.
    ///
    /// `entries` are the node's ``DeliveryEntry``s, index for index with `groups`: the loop reads
    /// a group's order and typed half there. `rows` are the node's ``SoleCallRows``, if it keeps
    /// them and they did not change since the pass began: a lone member is then called from its
    /// row, without reading its group at all, until a callback changes the rows; from there on,
    /// the pass reads each group.
    @inlinable
    static func deliverGroups(
        _ groups: UnsafeBufferPointer<MemberGroup>, entries: UnsafeBufferPointer<DeliveryEntry>,
        rows: SoleCallRows?, state: UnsafeMutableRawPointer, drain: Drain, level: Drain.CallLevel, pass: UInt64,
        engine: ObjectIdentifier, cursor: RunCursor
    ) {
        guard let rows, type(of: rows) == TypedSoleCallRows<State, Value>.self else {
            deliverEachGroup(
                groups, entries: entries, from: 0, state: state, drain: drain, level: level, pass: pass, engine: engine,
                cursor: cursor)
            return
        }
        assert(BorrowedEntry<State, Value>.matchesLayout, "BorrowedEntry out of step with SlotList.Entry")
        // Of this type (checked just above).
        let typedRows = unsafeDowncast(rows, to: TypedSoleCallRows<State, Value>.self)
        guard typedRows.isActive, typedRows.rows.count == groups.count else {
            assertionFailure("a node's rows out of step with its groups")
            deliverEachGroup(
                groups, entries: entries, from: 0, state: state, drain: drain, level: level, pass: pass, engine: engine,
                cursor: cursor)
            return
        }
        let next = callRows(
            typedRows, groups: groups, entries: entries, state: state, drain: drain, level: level, pass: pass,
            engine: engine, cursor: cursor)
        // The rows' copy is gone with `callRows`: a member removed by the callback that changed the
        // rows is released now, before any other callback runs.
        if next < groups.count {
            deliverEachGroup(
                groups, entries: entries, from: next, state: state, drain: drain, level: level, pass: pass,
                engine: engine, cursor: cursor)
        }
    }

    /// The loop of ``deliverGroups(_:entries:rows:state:drain:level:pass:engine:cursor:)`` over
    /// the rows while they stay as the pass found them; returns the index of the first group it
    /// did not deliver (`groups.count` when it delivered them all).
    @inlinable
    static func callRows(
        _ typedRows: TypedSoleCallRows<State, Value>, groups: UnsafeBufferPointer<MemberGroup>,
        entries: UnsafeBufferPointer<DeliveryEntry>, state: UnsafeMutableRawPointer, drain: Drain,
        level: Drain.CallLevel, pass: UInt64, engine: ObjectIdentifier, cursor: RunCursor
    ) -> Int {
        let version = typedRows.version
        let typedState = state.assumingMemoryBound(to: State.self)
        let cell = typedRows.cell
        // This copy of the rows keeps their buffer, and so every callback in it, alive until this
        // function returns: a callback is called where it is stored, borrowed (see
        // ``BorrowedEntry``), and a change of the rows meanwhile (the first one copies them) ends
        // the loop.
        let snapshot = typedRows.rows
        var index = 0
        snapshot.withUnsafeBufferPointer { snapshot in
            while index < groups.count {
                // A change to the rows since the pass began (made by a callback): the pass's copy
                // may no longer say who is to be called; the rest of the pass asks each group.
                guard typedRows.version == version else { return }
                let entry = entries[index]
                // Unretained: the pass's list of fired groups keeps each alive until its end, and
                // no pass replaces it before then (see ``SelectionEngine/deliverRuns(state:)``).
                let group = Unmanaged.passUnretained(groups[index])
                if _slowPath(cursor.skipPass == pass),
                    group._withUnsafeGuaranteedRef({ $0.isSkipped(inPass: pass, of: engine) })
                {
                    index += 1
                    continue
                }
                // A group the pass does not skip kept its order since the pass began.
                assert(
                    group._withUnsafeGuaranteedRef { entry.describes($0) },
                    "a delivery entry out of step with its group")
                cursor.order = entry.order
                let row = snapshot.baseAddress.unsafelyUnwrapped + index
                index += 1
                #if DEBUG
                    Unmanaged<TypedGroup>.fromOpaque(entry.typed)._withUnsafeGuaranteedRef { typed in
                        assert(
                            row.pointee.entry.element == nil
                                || (typed.callsSoleMemberFromRow(sharing: cell)
                                    && typed.soleIdentifier == row.pointee.entry.identifier
                                    && typed.tag == row.pointee.tag),
                            "a current row out of step with its group")
                    }
                #endif
                // The entry is the row's first stored property, and the view has its layout
                // (asserted by the caller); it lives no longer than `snapshot`.
                let called = row.pointer(to: \.entry).unsafelyUnwrapped.withMemoryRebound(
                    to: BorrowedEntry<State, Value>.self, capacity: 1
                ) { view in
                    callRow(
                        view.pointee, tag: row.pointee.tag, cell: cell, typed: entry.typed, state: typedState,
                        drain: drain, level: level)
                }
                if !called {
                    // No row: the group decides (a queue, an actor, several members, a catch-up).
                    group._withUnsafeGuaranteedRef { $0.deliverAll(state, drain) }
                }
            }
        }
        return index
    }

    /// Calls the member of a row, if it has one, with the node's cell, at `level`; returns whether
    /// the row had a member. A member the drain refuses is recorded as behind by its group.
    @inlinable
    @inline(__always)
    static func callRow(
        _ entry: borrowing BorrowedEntry<State, Value>, tag: UInt, cell: ValueCell<Value>, typed: UnsafeRawPointer,
        state: UnsafeMutablePointer<State>, drain: Drain, level: Drain.CallLevel
    ) -> Bool {
        let member = entry.identifier
        switch entry.element {
        case .change(let callback)?:
            let old = cell.previous
            guard drain.willCall(tag: tag, member: member, at: level) else {
                refuse(member, old: old, typed: typed)
                return true
            }
            callback(old, cell.last)
        case .value(let callback)?:
            guard drain.willCall(tag: tag, member: member, at: level) else {
                refuse(member, old: cell.previous, typed: typed)
                return true
            }
            callback(cell.last)
        case .changeInState(let callback)?:
            let old = cell.previous
            let new = cell.last
            guard drain.willCall(tag: tag, member: member, at: level) else {
                refuse(member, old: old, typed: typed)
                return true
            }
            ConsumerCallback.call(callback, old: old, new: new, state: &state.pointee)
        case .isolated?:
            return false
        case nil:
            return false
        }
        drain.didCall(at: level)
        return true
    }

    /// A row's member the drain refused to call: its group records it as behind (see ``skip(_:old:)``).
    @inlinable
    @inline(never)
    static func refuse(_ member: UInt64, old: Value, typed: UnsafeRawPointer) {
        // The pass's list of fired groups keeps the group, and so its typed half, alive.
        Unmanaged<TypedGroup>.fromOpaque(typed)._withUnsafeGuaranteedRef { $0.skip(member, old: old) }
    }

    /// ``deliverGroups(_:entries:rows:state:drain:level:pass:engine:cursor:)`` from group `start`
    /// on, reading each group: for a node that is not shared, or once its rows are out of date.
    @inlinable
    static func deliverEachGroup(
        _ groups: UnsafeBufferPointer<MemberGroup>, entries: UnsafeBufferPointer<DeliveryEntry>, from start: Int,
        state: UnsafeMutableRawPointer, drain: Drain, level: Drain.CallLevel, pass: UInt64,
        engine: ObjectIdentifier, cursor: RunCursor
    ) {
        let typedState = state.assumingMemoryBound(to: State.self)
        let ownType = ObjectIdentifier(TypedGroup.self)
        let prefetchDistance = 8
        for index in start..<groups.count {
            let entry = entries[index]
            if index &+ prefetchDistance < entries.count {
                // The typed halves are scattered on the heap, but their addresses are here in a
                // row: ask for one a few groups ahead, so that its line is in when the loop gets
                // there (with thousands of pages on one field, each would miss the cache).
                rc_prefetch(entries[index &+ prefetchDistance].typed)
            }
            // Unretained: the pass's list of fired groups keeps each alive until its end, and no
            // pass replaces it before then (see ``SelectionEngine/deliverRuns(state:)``).
            let group = Unmanaged.passUnretained(groups[index])
            if _slowPath(cursor.skipPass == pass),
                group._withUnsafeGuaranteedRef({ $0.isSkipped(inPass: pass, of: engine) })
            {
                continue
            }
            // A group the pass does not skip kept its order since the pass began.
            assert(
                group._withUnsafeGuaranteedRef { entry.describes($0) }, "a delivery entry out of step with its group")
            cursor.order = entry.order
            guard entry.type == ownType else {
                group._withUnsafeGuaranteedRef { $0.deliverAll(state, drain) }
                continue
            }
            // Of this type (checked just above), and unretained: the group holds its typed half
            // for as long as it lives.
            Unmanaged<TypedGroup>.fromOpaque(entry.typed)._withUnsafeGuaranteedRef { typed in
                guard !typed.soleIsStale, typed.hasSoleCallback, typed.callsInPlace, !typed.isCatchingUp else {
                    group._withUnsafeGuaranteedRef { $0.deliverAll(state, drain) }
                    return
                }
                if !typed.isSilenced {
                    typed.callSoleMember(state: typedState, drain: drain, level: level)
                }
            }
        }
    }

    /// Whether a pass may call the lone member of this group from a row of its node's
    /// ``SoleCallRows`` whose cell is `cell`: what ``deliverEachGroup`` would call in place from
    /// ``soleCallback``.
    @inlinable
    func callsSoleMemberFromRow(sharing cell: ValueCell<Value>) -> Bool {
        guard !soleIsStale, callsInPlace, !isCatchingUp, !isSilenced, self.cell === cell else { return false }
        switch soleCallback {
        case .change?: return true
        case .value?: return true
        case .changeInState?: return true
        case .isolated?: return false
        case nil: return false
        }
    }

    /// Calls (or posts) the sole member, its callback borrowed from `soleCallback` (which no
    /// change of the list replaces meanwhile, see `soleCalls`); named at `level`, or at a level of
    /// its own with `nil` (each caller passes a constant, and the other branch folds away).
    @inlinable
    @inline(__always)
    func callSole(state: UnsafeMutablePointer<State>, drain: Drain, level: Drain.CallLevel?) {
        guard callsInPlace, !isCatchingUp else {
            deliverElsewhere(slot: 0, state: state, drain: drain)
            return
        }
        let member = soleIdentifier
        switch soleCallback {
        case .isolated?:
            deliverElsewhere(slot: 0, state: state, drain: drain)
            return
        case nil:
            return
        default:
            break
        }
        let old = cell.previous
        let new = cell.last
        // One check for the three shapes called in place: the drain's check inlines once.
        let allowed =
            if let level {
                drain.willCall(tag: tag, member: member, at: level)
            } else {
                drain.willCall(tag: tag, member: member)
            }
        guard allowed else { return skip(member, old: old) }
        switch soleCallback {
        case .change(let callback)?: callback(old, new)
        case .value(let callback)?: callback(new)
        case .changeInState(let callback)?: ConsumerCallback.call(callback, old: old, new: new, state: &state.pointee)
        case .isolated?: break
        case nil: break
        }
        if let level { drain.didCall(at: level) } else { drain.didCall() }
    }

    /// Whether there is a sole callback (see ``soleCallback``).
    @inlinable
    var hasSoleCallback: Bool {
        switch soleCallback {
        case .some: true
        case nil: false
        }
    }

    /// ``call(_:identifier:slot:state:drain:)`` for a borrowed slot, inside a run of calls at
    /// `level`.
    @inlinable
    @inline(__always)
    func call(
        _ entry: borrowing BorrowedEntry<State, Value>, slot: Int, state: UnsafeMutablePointer<State>,
        drain: Drain, level: Drain.CallLevel
    ) {
        let member = entry.identifier
        switch entry.element {
        case .change(let callback)?:
            let old = cell.previous
            let new = cell.last
            guard drain.willCall(tag: tag, member: member, at: level) else { return skip(member, old: old) }
            callback(old, new)
        case .value(let callback)?:
            let old = cell.previous
            let new = cell.last
            guard drain.willCall(tag: tag, member: member, at: level) else { return skip(member, old: old) }
            callback(new)
        case .changeInState(let callback)?:
            let old = cell.previous
            let new = cell.last
            guard drain.willCall(tag: tag, member: member, at: level) else { return skip(member, old: old) }
            ConsumerCallback.call(callback, old: old, new: new, state: &state.pointee)
        case .isolated?:
            deliverElsewhere(slot: slot, state: state, drain: drain)
            return
        case nil:
            return
        }
        drain.didCall(at: level)
    }

    /// Calls (or posts) the member in `slot` if it is live and the group is not silenced.
    @inlinable
    func deliver(slot: Int, state: UnsafeMutableRawPointer, drain: Drain) {
        guard !isSilenced, slot < members.slotCount else { return }
        deliver(slot: slot, state: state.assumingMemoryBound(to: State.self), drain: drain)
    }

    /// Calls the live member in `slot` (`slot < slotCount`) with the cell's values: the hot path of
    /// every pass, kept small so it inlines into the delivery loop. A member called in place, with
    /// no catch-up under way, is called from here with the closure it was added with; anything
    /// else (a queue, an actor, a catch-up) takes ``deliverElsewhere(slot:state:drain:)``.
    @inlinable
    @inline(__always)
    func deliver(slot: Int, state: UnsafeMutablePointer<State>, drain: Drain) {
        let member = members.identifier(atSlot: slot)
        call(members[slot: slot], identifier: member, slot: slot, state: state, drain: drain)
    }

    /// Calls `callback`, the member in `slot`, with the cell's values: in place when the consumer
    /// has no queue and no catch-up is under way, else through
    /// ``deliverElsewhere(slot:state:drain:)``. The caller's copy of the callback keeps it alive
    /// (a pass that interleaves several groups' members calls them one by one, between calls that
    /// may change this list).
    @inlinable
    @inline(__always)
    func call(
        _ callback: ConsumerCallback<State, Value>?, identifier member: UInt64, slot: Int,
        state: UnsafeMutablePointer<State>, drain: Drain
    ) {
        guard callsInPlace, !isCatchingUp else {
            deliverElsewhere(slot: slot, state: state, drain: drain)
            return
        }
        guard let callback else { return }
        // One call at a level of its own, like a call named with `willCall(tag:member:)`.
        let level = drain.beginCalls()
        call(
            BorrowedEntry(identifier: member, element: BorrowedCallback(callback)), slot: slot, state: state,
            drain: drain, level: level)
        drain.endCalls(level)
    }

    /// ``deliver(slot:state:drain:)`` for a member that is posted (a queue, an actor) or called
    /// during a catch-up: out of line, so the hot path stays small.
    @inlinable
    @inline(never)
    func deliverElsewhere(slot: Int, state: UnsafeMutablePointer<State>, drain: Drain) {
        if let callback = members[slot: slot] {
            deliver(callback, member: members.identifier(atSlot: slot), state: state, drain: drain)
        }
    }

    /// A member the drain refused to call (another thread removed it, or its consumer is leaving):
    /// if it comes back, it hears this change then.
    @inlinable
    @inline(never)
    func skip(_ member: UInt64, old: Value) {
        if missed[member] == nil { missed[member] = old }
    }

    /// Calls (or posts) one member with the cell's values.
    @inlinable
    func deliver(
        _ callback: ConsumerCallback<State, Value>,
        member: UInt64,
        state: UnsafeMutablePointer<State>,
        drain: Drain
    ) {
        if _slowPath(isCatchingUp) {
            if let change = catchUp[member] {
                guard change.fires else { return }
                deliver(callback, member: member, old: change.old, new: change.new, state: state, drain: drain)
                return
            }
            guard catchUpChanged else { return }
        }
        let old = cell.previous
        let new = cell.last
        deliver(callback, member: member, old: old, new: new, state: state, drain: drain)
    }

    /// Calls (or posts) one member with the given values, unless another thread removed it: the
    /// drain checks, and tells removers which member it is calling (see ``Drain``). `isInstant`:
    /// the `.instantly` call, made even though `old == new`.
    @inlinable
    func deliver(
        _ callback: ConsumerCallback<State, Value>,
        member: UInt64,
        old: Value,
        new: Value,
        state: UnsafeMutablePointer<State>,
        drain: Drain,
        isInstant: Bool = false
    ) {
        guard drain.willCall(tag: tag, member: member) else {
            skip(member, old: old)
            return
        }
        let isSame = isInstant ? nil : isSame
        if callback.isIsolated {
            routes.actors.post(member: member, PendingChange(callback, old: old, new: new, state: nil, isSame: isSame))
        } else if let gate = routes.queue {
            gate.post(
                member: member,
                PendingChange(
                    callback, old: old, new: new, state: callback.needsState ? state.pointee : nil, isSame: isSame))
        } else {
            callback.call(old: old, new: new, state: state)
        }
        drain.didCall()
    }
}

extension TypedGroup {
    /// What a member that fell behind hears when its group comes back.
    @usableFromInline
    struct CatchUpChange {
        @usableFromInline let old: Value
        @usableFromInline let new: Value
        @usableFromInline let fires: Bool
    }

    /// The engine's handle on this group: closures that capture the group alone, so it serves as
    /// their context and they cost no allocation.
    @inlinable
    func memberGroup(key: GroupKey?) -> MemberGroup {
        MemberGroup(
            key: key,
            members: self,
            deliverAll: { [self] state, drain in deliverAll(state: state, drain: drain) },
            deliverSlot: { [self] slot, state, drain in deliver(slot: slot, state: state, drain: drain) },
            deliverGroups: { groups, entries, rows, state, drain, level, pass, engine, cursor in
                TypedGroup.deliverGroups(
                    groups, entries: entries, rows: rows, state: state, drain: drain, level: level, pass: pass,
                    engine: engine, cursor: cursor)
            },
            list: { [self] query in answer(query) },
            removeMember: { [self] member in
                let removed = remove(member)
                let isEmpty = members.isEmpty
                return (consume removed, isEmpty)
            }
        )
    }

    /// Answers a pass's question about the member list (see ``MemberGroup/list``).
    @inlinable
    func answer(_ query: ListQuery) -> UInt64 {
        switch query {
        case .beginIteration:
            members.beginIteration()
            return 0
        case .endIteration:
            members.endIteration()
            return 0
        case .slotCount:
            return UInt64(members.slotCount)
        case .liveSlot(let slot):
            return UInt64(members.liveSlot(from: slot))
        case .identifier(let slot):
            return members.identifier(atSlot: slot)
        case .firstLiveMember:
            let slot = members.liveSlot(from: 0)
            return slot < members.slotCount ? members.identifier(atSlot: slot) : .max
        case .lastLiveMember:
            let slot = members.lastLiveSlot()
            return slot >= 0 ? members.identifier(atSlot: slot) : 0
        }
    }

    /// The typed half of `group`, which a member of this selection made (same key, same types).
    @inlinable
    static func typed(_ group: MemberGroup) -> TypedGroup {
        unsafeDowncast(group.members as AnyObject, to: TypedGroup.self)
    }

    /// An evaluation that fires for every state (`isEqual == nil`, `.pulse`), or when `isEqual`
    /// says the value changed.
    @inlinable
    static func evaluator(
        _ selection: Selection<State, Value>,
        isEqual: (@Sendable (Value, Value) -> Bool)?
    ) -> (UnsafeMutableRawPointer, AnyObject, DerivationCache) -> Bool {
        guard let isEqual else {
            return { state, cell, cache in
                let cell = unsafeDowncast(cell, to: ValueCell<Value>.self)
                return cell.advance(to: read(selection, from: state, through: cell, cache: cache))
            }
        }
        return { state, cell, cache in
            let cell = unsafeDowncast(cell, to: ValueCell<Value>.self)
            let value = read(selection, from: state, through: cell, cache: cache)
            return isEqual(cell.last, value) ? false : cell.advance(to: value)
        }
    }

    /// The value of `selection` in the state at `state`; a derived value's through the memo in its
    /// cell (a ``DerivedCell``: see there for why every cell of a derived selection is one).
    @inlinable
    @inline(__always)
    static func read(
        _ selection: Selection<State, Value>, from state: UnsafeMutableRawPointer, through cell: ValueCell<Value>,
        cache: DerivationCache
    ) -> Value {
        let state = state.assumingMemoryBound(to: State.self)
        guard case .derived(let derived) = selection else { return selection.read(state) }
        assert(cell is DerivedCell<Value>, "a derived evaluation was given a cell of another kind")
        let cell = unsafeDowncast(cell, to: DerivedCell<Value>.self)
        return derived.read(state, cache: cache, memo: &cell.memo)
    }
}

extension TypedGroup where Value: Equatable {
    /// An evaluation compared with `==`, which specialisation turns into a plain compare for simple
    /// values. One closure per kind of selection rather than a `switch` inside one: the common
    /// case (a stored property) compiles to a load and a compare. The closures of stored
    /// properties and closure selectors capture nothing (their cells keep the offset or the
    /// selector); those of key paths and derived values capture one object, which serves as their
    /// context: none allocates a context of its own.
    @inlinable
    static func evaluator(_ selection: Selection<State, Value>) -> (UnsafeMutableRawPointer, AnyObject, DerivationCache)
        -> Bool
    {
        switch selection {
        case .offset:
            return { state, cell, _ in
                // An offset cell: see ``OffsetCell`` for why every cell given here is one.
                assert(cell is OffsetCell<Value>, "an offset evaluation was given a cell of another kind")
                let cell = unsafeDowncast(cell, to: OffsetCell<Value>.self)
                let value = state.load(fromByteOffset: cell.offset, as: Value.self)
                return value == cell.last ? false : cell.advance(to: value)
            }
        case .keyPath(let keyPath):
            return { state, cell, _ in
                let cell = unsafeDowncast(cell, to: ValueCell<Value>.self)
                let value = state.assumingMemoryBound(to: State.self).pointee[keyPath: keyPath]
                return value == cell.last ? false : cell.advance(to: value)
            }
        case .closure:
            return { state, cell, _ in
                // A selector cell: see ``SelectorCell`` for why every cell given here is one.
                assert(cell is SelectorCell<State, Value>, "a closure evaluation was given a cell of another kind")
                let cell = unsafeDowncast(cell, to: SelectorCell<State, Value>.self)
                let value = Selection.call(cell.select, with: &state.assumingMemoryBound(to: State.self).pointee)
                return value == cell.last ? false : cell.advance(to: value)
            }
        case .derived(let derived):
            return { state, cell, cache in
                // A derived cell: see ``DerivedCell`` for why every cell given here is one.
                assert(cell is DerivedCell<Value>, "a derived evaluation was given a cell of another kind")
                let cell = unsafeDowncast(cell, to: DerivedCell<Value>.self)
                let value = derived.read(state.assumingMemoryBound(to: State.self), cache: cache, memo: &cell.memo)
                return value == cell.last ? false : cell.advance(to: value)
            }
        }
    }
}

extension TypedGroup {
    /// Keeps the group's row in its node's ``SoleCallRows`` in step with the group: called after
    /// every change that may alter it.
    @inlinable
    @inline(__always)
    func noteRowChange() {
        // Most nodes have one group and keep no rows: one load and a branch.
        guard let rows = rowsOfNode, rows.isActive else { return }
        rows.refresh(self, order: rowOrder)
    }

    /// Keeps ``soleCallback`` in step with `members` (called after every change of the list).
    @inlinable
    func noteSoleMember() {
        // A list of several slots with no copy to drop and none stale: nothing changes (most
        // changes of a group of several members).
        if soleCalls == 0, !soleIsStale, members.slotCount != 1, !hasSoleCallback {
            return
        }
        // The row changes only with what it copies: an iteration's bookkeeping (every delivery of
        // a group of several members begins and ends one) leaves it as it is.
        let before = (soleIsStale, hasSoleCallback, soleIdentifier)
        defer {
            if (soleIsStale, hasSoleCallback, soleIdentifier) != before { noteRowChange() }
        }
        guard soleCalls == 0 else {
            soleIsStale = true
            return
        }
        soleIsStale = false
        if members.slotCount == 1, let only = members[slot: 0] {
            soleCallback = BorrowedCallback(only)
            soleIdentifier = members.identifier(atSlot: 0)
        } else if hasSoleCallback {
            soleCallback = nil
        }
    }

    /// Removes a member; returns its callback, to be released outside the engine's work. Reached
    /// through ``MemberGroup/removeMember``, a closure compiled for the group's types.
    @inlinable
    func remove(_ member: UInt64) -> (any Sendable)? {
        if !missed.isEmpty {
            missed.removeValue(forKey: member)
        }
        return members.remove(member)
    }
}

extension TypedGroup: GroupMembers {
    @usableFromInline
    var slotCount: Int { members.slotCount }

    @usableFromInline
    func identifier(atSlot slot: Int) -> UInt64 {
        members.identifier(atSlot: slot)
    }

    @usableFromInline
    func liveSlot(from slot: Int) -> Int {
        members.liveSlot(from: slot)
    }

    @usableFromInline
    func beginIteration() {
        members.beginIteration()
    }

    @usableFromInline
    func endIteration() {
        members.endIteration()
    }

    @usableFromInline
    func removeAll() -> [any Sendable] {
        missed.removeAll()
        return members.removeAll()
    }

    @usableFromInline
    func silence() {
        isSilenced = true
        noteRowChange()
    }

    @usableFromInline
    func resume() {
        isSilenced = false
        noteRowChange()
    }

    @usableFromInline
    func leave(unreachedAfter watermark: UInt64?) {
        defer { noteRowChange() }
        if let watermark {
            let previous = cell.previous
            var slot = members.liveSlot(from: 0)
            while slot < members.slotCount {
                let member = members.identifier(atSlot: slot)
                if member > watermark, missed[member] == nil {
                    if let change = catchUp[member] {
                        missed[member] = change.old
                    } else if !isCatchingUp || catchUpChanged {
                        missed[member] = previous
                    }
                }
                slot = members.liveSlot(from: slot + 1)
            }
        }
        endCatchUp()
        cell = cell.fresh(baseline: cell.last)
    }

    @usableFromInline
    func beginCatchUp(
        changed: Bool,
        state: UnsafeMutableRawPointer,
        evaluate: (UnsafeMutableRawPointer, AnyObject, DerivationCache) -> Bool,
        cache: DerivationCache
    ) -> Bool {
        defer { noteRowChange() }
        if routes.hasWithdrawn {
            // Calls posted before the consumer left and dropped as it left: their members heard
            // last what those calls started from, earlier than any change they missed since.
            var slot = members.liveSlot(from: 0)
            while slot < members.slotCount {
                let member = members.identifier(atSlot: slot)
                if let heard = routes.takeWithdrawn(member) as? Value {
                    missed[member] = heard
                }
                slot = members.liveSlot(from: slot + 1)
            }
        }
        guard !missed.isEmpty else { return changed }
        var changes: [UInt64: CatchUpChange] = [:]
        var anyFires = changed
        for (member, heard) in missed {
            let own = cell.fresh(baseline: heard)
            let fires = evaluate(state, own, cache)
            changes[member] = CatchUpChange(old: own.previous, new: own.last, fires: fires)
            anyFires = anyFires || fires
        }
        missed.removeAll()
        if changes.count == 1, members.count == 1, let only = changes.first?.value {
            // A sole member (an `isEqual:` member has a group of its own) that fell behind: the
            // cell follows what it hears now, or what it heard last. With `isEqual`, the group's
            // own evaluation may have kept a value the member never heard, and the next change's
            // `old` would be that value (guarantee 3).
            cell.previous = only.old
            cell.last = only.new
        }
        // With nothing to deliver, no catch-up begins: the caller ends only those it delivers,
        // and one left on would route every later delivery through its table.
        guard anyFires else { return false }
        catchUp = changes
        catchUpChanged = changed
        isCatchingUp = true
        return true
    }

    @usableFromInline
    func endCatchUp() {
        guard isCatchingUp else { return }
        isCatchingUp = false
        catchUp.removeAll()
        noteRowChange()
    }

    @usableFromInline
    func share(_ cell: EvaluatedCell) {
        self.cell = unsafeDowncast(cell, to: ValueCell<Value>.self)
        noteRowChange()
    }

    @usableFromInline
    func makeSoleCallRows() -> SoleCallRows {
        TypedSoleCallRows<State, Value>(cell: cell)
    }

    @usableFromInline
    func useRows(_ rows: SoleCallRows?, order: UInt64) {
        // A node's rows were made by its first group, of the node's types (same key, same types).
        rowsOfNode = rows as? TypedSoleCallRows<State, Value>
        assert(rows == nil || rowsOfNode != nil, "a group attached to a node of other types")
        rowOrder = order
    }

    @usableFromInline
    var ownCell: EvaluatedCell { cell }

}

/// What the engine, which knows no value types, may ask of a group's typed half. Off the hot
/// path: evaluation and delivery go through closures specialised for the types (see
/// ``MemberGroup``).
@usableFromInline
protocol GroupMembers: AnyObject {
    /// Slots a delivery walks.
    var slotCount: Int { get }
    func identifier(atSlot slot: Int) -> UInt64
    /// The first live slot at or after `slot` (or `slotCount`).
    func liveSlot(from slot: Int) -> Int
    func beginIteration()
    func endIteration()
    /// Removes every member; returns their callbacks.
    func removeAll() -> [any Sendable]
    /// Stops any delivery in progress and every later one.
    func silence()
    /// Delivers again: the group is back in an engine.
    func resume()
    /// Leaves the shared cell: keeps a copy of the last value, to compare with on return. With a
    /// `watermark`, a delivery of the group's change was under way: the members after it in
    /// identifier order did not hear it, and keep the value they heard last.
    func leave(unreachedAfter watermark: UInt64?)
    /// Compares the value each member that fell behind heard last with the state at `state`;
    /// until ``endCatchUp()``, deliveries call those members with their own change (if any) and
    /// the others only when `changed`. Returns whether anyone is to be called; only then does a
    /// catch-up begin (and the caller ends it).
    func beginCatchUp(
        changed: Bool,
        state: UnsafeMutableRawPointer,
        evaluate: (UnsafeMutableRawPointer, AnyObject, DerivationCache) -> Bool,
        cache: DerivationCache
    ) -> Bool
    /// Ends a catch-up: deliveries use the cell again.
    func endCatchUp()
    /// Joins an evaluation: read `old` and `new` from its cell from now on.
    func share(_ cell: EvaluatedCell)
    /// New rows for a shared node whose first group this is, on its cell (see ``SoleCallRows``).
    func makeSoleCallRows() -> SoleCallRows
    /// Keeps the group's row in `rows` (a node's, as the group is attached to it at `order`; `nil`
    /// as it is detached) in step with the group from now on.
    func useRows(_ rows: SoleCallRows?, order: UInt64)
    /// The cell the group reads now.
    var ownCell: EvaluatedCell { get }
}
