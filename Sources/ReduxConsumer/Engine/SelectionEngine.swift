/// The consumers fed by one source (a store, or a consumer fed by hand): their evaluations, shared
/// by selection, and the pass that calls the members whose values changed.
///
/// A pass reads and compares each distinct selection once (``SelectionNode``), however many
/// consumers watch it, then calls the fired members in the order of their consumers' subscription
/// and, within a consumer, in the order the members were added. A consumer whose values did not
/// change costs nothing: the pass walks nodes, never consumers.
///
/// The engine knows no `State`: the state comes by address, and the closures that read it were
/// compiled for the caller's types (see ``TypedGroup``). It is confined to the drain of its source,
/// and is only reached through that source's ``DrainBound``.
final class SelectionEngine {
    // `@exclusivity(unchecked)` on the tables a pass reads: the engine is confined to its drain
    // (its ``DrainBound`` checks that in debug builds) and no access spans a user callback (the
    // pass walks a local copy of `nodes`, and reads the fired lists between callbacks), so
    // accesses never overlap; the dynamic check would cost more than an evaluation. The same holds
    // for the pass's flags and the lists `endPass()` empties (it copies each queued `.instantly`
    // call out of its list before making it).

    /// The drain the engine is confined to, which runs its callbacks.
    let drain: Drain
    /// The memos of the derived values watched here.
    let derivations = DerivationCache()
    /// Every node, in no particular order: a node leaves in O(1) by swapping with the last one.
    @exclusivity(unchecked) private var nodes: [SelectionNode] = []
    /// Each node's cell, at the node's index: the list a pass walks, so that evaluating a
    /// selection reads its cell and not its node. Unretained: `nodes[i]` holds `cells[i]` (its
    /// constant `cell`), and the two lists change together (debug builds check each pass).
    @exclusivity(unchecked) private var cells = CellList()
    /// `nodes` as a pass's evaluation found it, kept from the first change of the list during
    /// that evaluation (a selector that adds or removes consumers) to its end: it holds the nodes,
    /// and so the cells, that the walk reads (see ``CellList``), and the fired indices refer to
    /// it. `nil` while the list is as the walk found it: the pass then reads `nodes` itself, and
    /// copies no list (a copy retains and releases its buffer).
    @exclusivity(unchecked) private var nodesAsWalked: [SelectionNode]?
    /// What a pass reads and writes of each fired node, at the node's index, so that a pass that
    /// fired several nodes touches the node itself only when it has several groups (see
    /// ``NodeMark``). Changes with `nodes`; debug passes check each fired node's mark.
    // `@exclusivity(unchecked)`: as the other tables (confined to the drain; the pass's loop over
    // it runs no user code, and a callback's attach or detach changes it between accesses).
    @exclusivity(unchecked) private var marks: [NodeMark] = []
    /// Counts the nodes made and dropped: a pass whose selectors changed the list (a misbehaving
    /// selector that adds or removes consumers) finds its nodes' marks through the nodes.
    private var nodeListChanges: UInt64 = 0
    private var nodeByKey: [GroupKey: SelectionNode] = [:]
    /// What a node puts in the place of a group that left it (see ``Vacancy``): made the first
    /// time a node needs one.
    private var vacancy: MemberGroup?
    private var nextOrder: UInt64 = 0
    /// The pass being evaluated: the indices, in the pass's copy of `nodes`, of the nodes that
    /// fired when more than one did (indices, not references: filling the list retains nothing).
    @exclusivity(unchecked) private var firedNodes: [Int] = []
    /// The pass in progress, when one node fired: its groups, in call order (when several fired,
    /// `sortKeys` lists them).
    @exclusivity(unchecked) private var firedGroups: [MemberGroup] = []
    /// When one node fired: its ``SelectionNode/entries``, index for index with `firedGroups`
    /// (both are that node's lists as the pass began).
    @exclusivity(unchecked) private var firedEntries: [DeliveryEntry] = []
    /// When one node fired: its ``SoleCallRows`` (if it keeps them), and their
    /// ``SoleCallRows/version`` as the pass began.
    @exclusivity(unchecked) private var firedRows: SoleCallRows?
    @exclusivity(unchecked) private var firedRowsVersion: UInt64 = 0
    /// `firedRows`, unretained, for the delivery loop: `firedRows` holds them until `endPass()`,
    /// and both are set and cleared together.
    @exclusivity(unchecked) private var firedRowsUnretained: Unmanaged<SoleCallRows>?
    /// The elements of `firedGroups` and `firedEntries`, read by the delivery loops without the
    /// retain and release of the lists' buffers that reading the lists costs. Unsafe pointers into
    /// those buffers: valid while the lists hold them, which they do unchanged from the pass's
    /// evaluation to its end (only ``evaluate(_:)`` and ``endPass()`` assign the lists, and
    /// nothing changes them in place); debug builds check the addresses at every use
    /// (``isFiredListInStep``).
    @exclusivity(unchecked) private var firedGroupsBuffer = UnsafeBufferPointer<MemberGroup>(start: nil, count: 0)
    @exclusivity(unchecked) private var firedEntriesBuffer = UnsafeBufferPointer<DeliveryEntry>(start: nil, count: 0)
    /// The pass in progress, when one node with one group fired (a store's only consumer, most
    /// often): that group, instead of `firedGroups` and `firedEntries`, whose copies of the node's
    /// lists cost three atomic retains and releases per pass. Unretained, as ``SortKey/group``:
    /// the node's list held it as the pass began, and it leaves that list only through
    /// ``detach(_:)``, which keeps it in `leftDuringPass` until ``endPass()``; debug builds count
    /// it in ``MemberGroup/passHolds``.
    @exclusivity(unchecked) private var firedSoleGroup: Unmanaged<MemberGroup>?
    /// Whether each fired group is a run of its own (one node fired), so `runs` is not built.
    @exclusivity(unchecked) private var eachGroupIsARun = false
    /// Runs of `sortKeys` that belong to one consumer.
    @exclusivity(unchecked) private var runs: [Run] = []
    /// The pass in progress, when several nodes fired: their groups, in call order once
    /// ``evaluate(_:)`` has sorted them, each with its call order and, for a consumer with several
    /// fired groups, their first and last live members. The buffer is kept from one such pass to
    /// the next, to spare an allocation per pass.
    @exclusivity(unchecked) private var sortKeys: [SortKey] = []
    /// Groups that left their node during the pass in progress, kept alive until it ends: the
    /// pass's list of groups (`sortKeys`) holds them unretained (see ``SortKey/group``).
    // `@exclusivity(unchecked)`: confined to the drain; appended by a detach (between callbacks),
    // emptied by `endPass()` (swapped out before anything is released).
    @exclusivity(unchecked) private var leftDuringPass: [MemberGroup] = []
    /// Whether a pass is between ``evaluate(_:)`` (with something fired) and ``endPass()``.
    @exclusivity(unchecked) private var isPassing = false
    /// Counts passes: a node records the pass it last fired in.
    @exclusivity(unchecked) private var passNumber: UInt64 = 0
    /// Groups the pass in progress skips (see ``MemberGroup/skip(inPass:of:)``), whose marks it
    /// erases at its end: a mark never outlives the pass that made it, so it is never taken for
    /// one of another engine that later lives at this one's address.
    @exclusivity(unchecked) private var skippedDuringPass: [MemberGroup] = []
    /// Fired groups that members joined during the pass: their new members wait (pending in the
    /// group's list) until ``endPass()``, so they start with the next state.
    @exclusivity(unchecked) private var joinedDuringPass: [MemberGroup] = []
    /// Whether a store is notifying its subscribers (from before ``evaluate(_:)`` to
    /// ``endPass()``): `.instantly` calls of members added meanwhile wait for the pass's end.
    @exclusivity(unchecked) var holdsInstantCalls = false
    /// `.instantly` calls of members added during the pass (from inside a callback): made at the
    /// pass's end, after the members added before them, never inside `add` (guarantee 2).
    @exclusivity(unchecked) private var instantCallsAfterPass:
        [(
            registration: Registration, group: MemberGroup, member: UInt64, state: UnsafeMutableRawPointer,
            call: (MemberGroup, UnsafeMutableRawPointer, Drain) -> Void
        )] = []
    /// The order of the run of the pass being called (0 before the first): earlier runs are done.
    private let cursor = RunCursor()
    /// Registrations catching up as they come in (see ``attach(_:order:state:)``), innermost
    /// last, with the groups being delivered.
    private var catchingUp: [(registration: Registration, groups: [MemberGroup])] = []

    /// A consumer's fired groups in a pass that fired several nodes: `sortKeys[start..<end]`, all
    /// with call order `order`.
    struct Run {
        let order: UInt64
        let start: Int
        let end: Int
        /// Whether every live member of each group comes before every live member of the next, as
        /// the pass found them when it began: calling the groups one after another is then calling
        /// their members in identifier order, with no merge (see ``membersFollowEachOther(_:)``).
        var inMemberOrder = true
    }

    /// A node's entry in ``marks``: the pass that last fired it, and its group while it has only
    /// one (most nodes: every closure selector's, and most key paths'), unretained (the node's
    /// list holds it). Beyond the cache, each object a pass reads is a miss: kept here, 16 bytes a
    /// node in one list, neither costs a read (and a write) of the node. ``attach(_:to:)`` and
    /// ``detach(_:)``, the only changes of a node's groups while the engine lives, keep `onlyGroup`
    /// in step; debug passes assert it (``isMarkInStep(_:)``).
    struct NodeMark {
        /// The engine's number of the last pass in which the node fired.
        var firedPass: UInt64 = 0
        var onlyGroup: Unmanaged<MemberGroup>?
    }

    /// What ``evaluate(_:)`` orders a fired group by.
    struct SortKey {
        let order: UInt64
        /// The group's first and last live members (`.max` and 0 when it has none): its
        /// ``MemberGroup/soleMember`` for a group of one member, otherwise asked only for a
        /// consumer with several fired groups (0 until then).
        var first: UInt64 = 0
        var last: UInt64 = 0
        /// Unretained, for a pass of thousands of groups spends an atomic retain and release on
        /// each, and beyond the cache a miss on each release. Alive until the pass ends: the group
        /// was in a node's list as the pass began, and leaves it only through ``detach(_:)``,
        /// which keeps it in ``leftDuringPass`` until ``endPass()``. Debug builds count the passes
        /// that hold a group (``MemberGroup/passHolds``), and a group's `deinit` asserts that none
        /// does.
        let group: Unmanaged<MemberGroup>
    }

    init(drain: Drain) {
        self.drain = drain
    }

    deinit {
        // Nodes and groups refer to each other; break the cycles.
        for node in nodes {
            for group in node.groups where group !== vacancy {
                group.node = nil
                group.members.useRows(nil, order: 0)
            }
            node.groups.removeAll()
            node.entries.removeAll()
        }
    }

    /// The number of distinct evaluations a pass makes.
    var nodeCount: Int { nodes.count }

    /// Hands out the next call order: consumers and closure subscribers are called in the order
    /// they got theirs.
    func takeOrder() -> UInt64 {
        nextOrder += 1
        return nextOrder
    }

    // MARK: Membership

    /// Admits a member into `registration`, which is in this engine, starting from the state at
    /// `state`; fires it at once when it asked for `.instantly`.
    ///
    /// A member added during a pass (inside a callback, `isAdding`) makes its `.instantly` call at
    /// the pass's end; one admitted with its consumer's first state makes it at once.
    func admit(
        _ enrollment: Enrollment, into registration: Registration, state: UnsafeMutableRawPointer,
        isAdding: Bool = false
    ) {
        admit(
            enrollment.id, key: enrollment.key, fireInstantly: enrollment.fireInstantly, into: registration,
            state: state, isAdding: isAdding, place: enrollment.place)
    }

    /// ``admit(_:into:state:isAdding:)`` for a member whose enrollment was never kept: `place`
    /// (see ``Enrollment/place``) is used during the call only.
    func admit(
        _ id: UInt64,
        key: GroupKey?,
        fireInstantly: ((MemberGroup, UnsafeMutableRawPointer, Drain) -> Void)?,
        into registration: Registration,
        state: UnsafeMutableRawPointer,
        isAdding: Bool,
        place: (Enrollment.Placement) -> MemberGroup?
    ) {
        let group: MemberGroup
        if let key, let existing = registration.groupsByKey[key] {
            if isPassing, let node = existing.node, marks[node.index].firedPass == passNumber,
                !joinedDuringPass.contains(where: { $0 === existing })
            {
                // The group fired in this pass: the new member starts with the next state.
                existing.beginIteration()
                joinedDuringPass.append(existing)
            }
            _ = place(.join(existing))
            // No longer a group of one member: the pass asks its list for its first and last.
            existing.soleMember = 0
            group = existing
        } else {
            let node = key.flatMap { nodeByKey[$0] }
            derivations.beginPass()
            guard
                let made = place(
                    .newGroup(
                        state: state, cell: node?.cell, routes: registration.routes, tag: registration.tag,
                        cache: derivations))
            else {
                preconditionFailure("an enrollment made no group")
            }
            group = made
            group.order = registration.order
            assert(id != 0, "member identifiers start at 1")
            group.soleMember = id
            registration.add(group)
            attach(group, to: node)
        }
        registration.groupOfMember.insert(group, identifier: id)
        guard let fireInstantly else { return }
        if isAdding, holdsInstantCalls {
            // The state does not change until the pass ends (actions dispatched meanwhile are
            // queued), so `state` is still the pass's state when the call is made.
            instantCallsAfterPass.append((registration, group, id, state, fireInstantly))
        } else {
            fireInstantly(group, state, drain)
        }
    }

    /// Brings `registration` into this engine with the state at `state`: each group compares its
    /// members' last value with the state and calls them if it changed (in member order, as a pass
    /// would), then shares the engine's evaluation; members waiting for a first state are admitted.
    func attach(_ registration: Registration, order: UInt64, state: UnsafeMutableRawPointer) {
        // A member added by a callback below (a catch-up or an `.instantly` call) makes its own
        // `.instantly` call after the others, not inside its `add`.
        holdingInstantCalls { attachHolding(registration, order: order, state: state) }
    }

    private func attachHolding(_ registration: Registration, order: UInt64, state: UnsafeMutableRawPointer) {
        assert(registration.engine == nil, "a registration attached twice")
        registration.engine = self
        registration.order = order
        if isPassing {
            // Back during a pass: the pass must skip these groups and keep their old call order.
            for group in registration.groups {
                skipInPass(group)
            }
        }
        // Members added from here on (inside the callbacks below) wait for the next state.
        registration.waiting.beginIteration()
        defer { registration.waiting.endIteration() }
        var changed: [MemberGroup] = []
        derivations.beginPass()
        for group in registration.groups {
            group.order = registration.order
            group.members.resume()
            // The group's own cell (it is in no node yet), which holds its selection's evaluation.
            let cell = group.members.ownCell
            let moved = cell.evaluation(state, cell, derivations)
            if group.members.beginCatchUp(
                changed: moved, state: state, evaluate: cell.evaluation, cache: derivations)
            {
                changed.append(group)
            }
        }
        if !changed.isEmpty {
            // Delivered from each group's own cell, before it shares the node's.
            catchingUp.append((registration, changed))
            deliver(changed, ordered: true, state: state)
            catchingUp.removeLast()
            for group in changed {
                group.members.endCatchUp()
            }
        }
        // A callback above may have ended the subscription: then nothing more joins.
        guard registration.engine === self else { return }
        for group in registration.groups where group.node == nil {
            attach(group, to: group.key.flatMap { nodeByKey[$0] })
        }
        admitWaiting(in: registration, state: state)
    }

    /// Admits, in identifier order, the members of `registration` that wait for a first state,
    /// starting from the state at `state`. Members added meanwhile (by the callbacks of those
    /// admitted, or earlier inside an iteration of `waiting` the caller began) wait for the next.
    func admitWaiting(in registration: Registration, state: UnsafeMutableRawPointer) {
        registration.waiting.beginIteration()
        defer { registration.waiting.endIteration() }
        var slot = 0
        while slot < registration.waiting.slotCount, registration.engine === self {
            if let next = registration.waiting[slot: slot] {
                registration.waiting.remove(next.id)
                admit(next, into: registration, state: state)
            }
            slot += 1
        }
    }

    /// Takes `registration` out of this engine: each group keeps its last value in a cell of its
    /// own, to compare with when it comes back. No callback of its runs again here, not even later
    /// in a pass in progress.
    func detach(_ registration: Registration) {
        let (pending, watermark) = deliveriesUnderWay(to: registration)
        for group in registration.groups {
            group.members.silence()
            group.members.leave(unreachedAfter: pending.contains { $0 === group } ? watermark : nil)
            detach(group)
            if isPassing {
                // The pass in progress no longer calls the group: it may join another engine
                // before the pass reaches it (fed by hand from a callback, say) and hear the
                // change there, from its members' own last values.
                skipInPass(group)
                // Members that joined it during the pass waited for the pass's end, which no
                // longer concerns them: they join now, from the value they were added at (the
                // group's last), so that wherever the group goes next they hear what follows.
                if let index = joinedDuringPass.firstIndex(where: { $0 === group }) {
                    joinedDuringPass.remove(at: index)
                    group.endIteration()
                }
            }
        }
        registration.engine = nil
    }

    /// Whether the pass in progress, number `pass`, is to call `group`: not when its consumer came
    /// back during the pass (it heard the change as it came back) or left during it.
    ///
    /// The group is asked only during a pass that marked some group skipped (see
    /// ``RunCursor/skipPass``): the question reads a word the call does not, often on another
    /// cache line of the group.
    @inline(__always)
    private func isDue(_ group: MemberGroup, inPass pass: UInt64) -> Bool {
        cursor.skipPass != pass || !group.isSkipped(inPass: pass, of: ObjectIdentifier(self))
    }

    /// The groups of `registration` whose change is being delivered (by a pass or as it comes
    /// in), and the last member called: members are called in identifier order, so those after
    /// it have not heard the change.
    private func deliveriesUnderWay(to registration: Registration) -> (groups: [MemberGroup], watermark: UInt64) {
        // A consumer leaves from inside one of its own callbacks, or from someone else's: only
        // in the first case has its delivery begun and not ended.
        let calling = drain.callingMember(of: registration.tag)
        if let entry = catchingUp.last(where: { $0.registration === registration }) {
            return (entry.groups, calling ?? .max)
        }
        guard isPassing, registration.order >= cursor.order else { return ([], .max) }
        // A group the pass skips heard the change already, as it came back during the pass.
        let engine = ObjectIdentifier(self)
        let groups =
            eachGroupIsARun
            ? firedSoleGroup.map { [$0.takeUnretainedValue()] } ?? firedGroups
            : sortKeys.map { $0.group.takeUnretainedValue() }
        let fired = groups.filter {
            $0.order == registration.order && !$0.isSkipped(inPass: passNumber, of: engine)
        }
        return (fired, registration.order > cursor.order ? 0 : calling ?? .max)
    }

    private func attach(_ group: MemberGroup, to existing: SelectionNode?) {
        let node: SelectionNode
        if let existing {
            node = existing
            group.members.share(node.cell)
        } else {
            node = SelectionNode(
                key: group.key, cell: group.members.ownCell,
                soleRows: group.key == nil ? nil : group.members.makeSoleCallRows())
            keepNodesAsWalked()
            node.index = nodes.count
            nodes.append(node)
            cells.append(Unmanaged.passUnretained(node.cell))
            marks.append(NodeMark())
            nodeListChanges &+= 1
            if let key = group.key {
                nodeByKey[key] = node
            }
        }
        group.members.resume()
        group.node = node
        node.attach(group)
        noteOnlyGroup(of: node)
    }

    /// Sets the ``NodeMark/onlyGroup`` of `node` after a change of its groups.
    private func noteOnlyGroup(of node: SelectionNode) {
        // Unretained: `node.groups` holds it while it is there, and every change of that list
        // comes through here (checked by `isMarkInStep` on every pass).
        marks[node.index].onlyGroup = node.groups.count == 1 ? Unmanaged.passUnretained(node.groups[0]) : nil
    }

    /// Whether the mark of node `index` is in step with the node's groups (debug builds assert it
    /// for every node a pass fires).
    private func isMarkInStep(_ index: Int) -> Bool {
        let groups = nodes[index].groups
        if let onlyGroup = marks[index].onlyGroup {
            return groups.count == 1 && onlyGroup.takeUnretainedValue() === groups[0]
        }
        return groups.count != 1
    }

    /// Detaches a group from its node, dropping the node once no group is left.
    func detach(_ group: MemberGroup) {
        guard let node = group.node else { return }
        if isPassing {
            // The pass may hold it unretained (see ``SortKey/group``).
            leftDuringPass.append(group)
        }
        group.node = nil
        node.detach(group) {
            if let vacancy { return vacancy }
            let made = Vacancy.make()
            vacancy = made
            return made
        }
        guard node.groups.isEmpty else {
            noteOnlyGroup(of: node)
            return
        }
        keepNodesAsWalked()
        let last = nodes.removeLast()
        let lastCell = cells.removeLast()
        let lastMark = marks.removeLast()
        nodeListChanges &+= 1
        if last !== node {
            nodes[node.index] = last
            cells[node.index] = lastCell
            marks[node.index] = lastMark
            last.index = node.index
        }
        node.index = -1
        if let key = node.key, nodeByKey[key] === node {
            nodeByKey.removeValue(forKey: key)
        }
    }

    /// Makes the pass in progress skip `group`, until its end.
    private func skipInPass(_ group: MemberGroup) {
        group.skip(inPass: passNumber, of: ObjectIdentifier(self))
        skippedDuringPass.append(group)
        cursor.skipPass = passNumber
    }

    /// Before a change of the list of nodes: during an evaluation, keeps the list it walks.
    private func keepNodesAsWalked() {
        if _slowPath(cells.isWalking), nodesAsWalked == nil {
            nodesAsWalked = nodes
        }
    }

    // MARK: The pass

    /// Evaluates every node with the state at `state` and orders the groups to call; returns the
    /// number of fired runs (one per consumer), to call in order with ``deliverRuns(state:)`` or
    /// ``withRunDelivery(state:_:)``.
    ///
    /// - Complexity: One evaluation per distinct selection; when one node fired, nothing per
    ///   group (the pass walks the node's own list); when several fired, O(g log g) in the fired
    ///   groups.
    func evaluate(_ state: UnsafeMutableRawPointer) -> Int {
        // The delivery loops read `firedGroups` and `sortKeys` through buffer pointers across
        // callbacks: only a new pass replaces them, and none starts before `endPass()` (a
        // callback's dispatch or feed is queued behind the current job).
        assert(!isPassing, "a pass of a consumer engine started while another one was delivering")
        // Emptied by the pass that filled it, before it returned.
        assert(firedNodes.isEmpty, "a pass left its fired nodes behind")
        derivations.beginPass()
        let derivations = derivations
        // The lists as they are: a selector that misbehaves (adds or removes consumers) changes
        // the engine's lists, not the ones being walked (`cells` moves out of the walked buffer,
        // and `nodesAsWalked` keeps the walked nodes, and so their cells, alive).
        let nodeListChanges = self.nodeListChanges
        // The first node that fired is kept aside: most passes fire one node, and then the list
        // of fired nodes is never touched (filling and emptying it costs more than the rest of
        // the bookkeeping).
        var firstFired = -1
        let walk = cells.beginWalk()
        for index in walk.indices {
            assert(
                walk[index].takeUnretainedValue() === (nodesAsWalked ?? self.nodes)[index].cell,
                "a node's cell out of step with the list of cells")
            // Guaranteed: `nodes`, or `nodesAsWalked` once it changed, holds the cell's node.
            if walk[index]._withUnsafeGuaranteedRef({ $0.evaluation(state, $0, derivations) }) {
                if firstFired < 0 {
                    firstFired = index
                } else {
                    if firedNodes.isEmpty {
                        firedNodes.append(firstFired)
                    }
                    firedNodes.append(index)
                }
            }
        }
        cells.endWalk()
        // Released when the pass's evaluation returns, as the copies of the lists it once made.
        let walkedNodes = nodesAsWalked
        nodesAsWalked = nil
        defer { withExtendedLifetime(walkedNodes) {} }
        guard firstFired >= 0 else { return 0 }
        assert((walkedNodes == nil) == (self.nodeListChanges == nodeListChanges), "a change of the nodes not kept")
        @inline(__always)
        func walkedNode(at index: Int) -> SelectionNode {
            walkedNodes?[index] ?? nodes[index]
        }
        passNumber &+= 1
        isPassing = true
        cursor.order = 0
        if firedNodes.isEmpty, walkedNodes == nil {
            assert(isMarkInStep(firstFired), "a node's only group out of step with its groups")
            // One node fired, and the list of nodes is as the walk found it, so its mark is at
            // its index in the walk: a node of one group is delivered from the mark alone.
            marks[firstFired].firedPass = passNumber
            if let group = marks[firstFired].onlyGroup {
                #if DEBUG
                    group._withUnsafeGuaranteedRef { $0.passHolds += 1 }
                #endif
                firedSoleGroup = group
                eachGroupIsARun = true
                return 1
            }
        }
        if firedNodes.isEmpty {
            // One node fired. Its groups belong to distinct consumers, in call order: each is a
            // run. The list is shared, not copied (a group leaving during the pass copies the
            // node's).
            let node = walkedNode(at: firstFired)
            if node.index >= 0 {
                marks[node.index].firedPass = passNumber
            }
            let groups = node.groups
            let entries = node.entries
            // Into the buffers the pass's lists now hold (see `firedGroupsBuffer`).
            firedGroupsBuffer = groups.withUnsafeBufferPointer { $0 }
            firedEntriesBuffer = entries.withUnsafeBufferPointer { $0 }
            firedGroups = groups
            firedEntries = entries
            if let rows = node.soleRows, rows.isActive {
                firedRows = rows
                firedRowsUnretained = Unmanaged.passUnretained(rows)
                firedRowsVersion = rows.version
            }
            eachGroupIsARun = true
            return firedGroups.count
        }
        eachGroupIsARun = false
        // Each node's groups are in call order already; several nodes interleave. The pass visits
        // each fired group once before its delivery: here, for its order, and for a consumer with
        // several fired groups, its first and last live members (a call into the group's typed
        // half and a read of its list), which both order the consumer's groups and tell whether
        // their members follow each other. Beyond the cache (thousands of fired groups), each
        // visit is a cache miss per object. No user code runs from here to the end of the pass's
        // evaluation, so the nodes' lists stay as they are: they are read in place, unretained
        // (the pass's copy of `nodes` keeps every node, and each node its groups).
        assert(sortKeys.isEmpty, "a pass left its groups behind")
        let pass = passNumber
        var inCallOrder = true
        var previousOrder: UInt64 = 0
        @inline(__always)
        func appendSortKey(for group: Unmanaged<MemberGroup>) {
            // Guaranteed: the group is in a node's list, which nothing changes until this
            // function's caller returns (no user code runs; debug builds check `node.changes`).
            group._withUnsafeGuaranteedRef { group in
                let order = group.order
                if order < previousOrder {
                    inCallOrder = false
                }
                previousOrder = order
                #if DEBUG
                    group.passHolds += 1
                #endif
                assert(
                    !group.hasSoleMember || group.list(.lastLiveMember) <= group.soleMember,
                    "a group that members joined taken for a group of one member")
                // Unretained: see ``SortKey/group``.
                sortKeys.append(
                    SortKey(
                        order: order, first: group.soleMember, last: group.soleMember,
                        group: Unmanaged.passUnretained(group)))
            }
        }
        if _slowPath(self.nodeListChanges != nodeListChanges) {
            // A selector made or dropped nodes: `firedNodes` are indices in the pass's copy of
            // the list, no longer in `marks`.
            for index in firedNodes {
                let node = walkedNode(at: index)
                if node.index >= 0 {
                    marks[node.index].firedPass = pass
                }
                for group in node.groups where group !== vacancy {
                    // Held by the node's list, and past it by ``SortKey/group``'s rule.
                    appendSortKey(for: Unmanaged.passUnretained(group))
                }
            }
        } else {
            #if DEBUG
                for index in firedNodes {
                    assert(isMarkInStep(index), "a node's only group out of step with its groups")
                }
            #endif
            // The buffer does not outlive the loop, which runs no user code and changes no node.
            marks.withUnsafeMutableBufferPointer { marks in
                for index in firedNodes {
                    marks[index].firedPass = pass
                    // Most nodes have one group, read without the node or its list.
                    if let group = marks[index].onlyGroup {
                        appendSortKey(for: group)
                        continue
                    }
                    Unmanaged.passUnretained(nodes[index])._withUnsafeGuaranteedRef { node in
                        #if DEBUG
                            let changes = node.changes
                            defer { assert(node.changes == changes, "a node's groups changed while a pass read them") }
                        #endif
                        node.groups.withUnsafeBufferPointer { groups in
                            for index in groups.indices where groups[index] !== vacancy {
                                appendSortKey(for: Unmanaged.passUnretained(groups[index]))
                            }
                        }
                    }
                }
            }
        }
        firedNodes.removeAll(keepingCapacity: true)
        // By consumer first (orders are distinct between consumers); then each consumer's groups
        // by their first member. Most passes find them in order already (nodes are listed in the
        // order they were made), and then sort nothing.
        if !inCallOrder {
            sortKeys.sort { $0.order < $1.order }
        }
        // The runs: each consumer's groups, next to each other after the sort.
        runs.removeAll(keepingCapacity: true)
        var start = 0
        while start < sortKeys.count {
            let order = sortKeys[start].order
            var end = start + 1
            while end < sortKeys.count, sortKeys[end].order == order {
                end += 1
            }
            // A consumer with one fired group (most of them when many consumers watch one store)
            // has nothing to order.
            runs.append(end - start == 1 ? Run(order: order, start: start, end: end) : orderRun(from: start, to: end))
            start = end
        }
        return runs.count
    }

    /// Orders one consumer's fired groups, `sortKeys[start..<end]`, by their first live member,
    /// and returns their run.
    private func orderRun(from start: Int, to end: Int) -> Run {
        // In place, through the buffer: sorting `sortKeys[start..<end]` through the slice would
        // copy it, and each subscript of the engine's list would check its bounds and load its
        // buffer again. The buffer does not outlive the closure, and nothing in it touches
        // `sortKeys` (a group's list answers from the group's typed half; no user code runs).
        sortKeys.withUnsafeMutableBufferPointer { all in
            var keys = UnsafeMutableBufferPointer(rebasing: all[start..<end])
            var run = Run(order: keys[0].order, start: start, end: end)
            // A group of one member came with it (see ``MemberGroup/soleMember``); any other
            // answers two questions, back to back while its list is in the cache.
            var isSorted = true
            var previousFirst: UInt64 = 0
            for index in keys.indices {
                if keys[index].first == 0 {
                    // Alive until the pass ends (see ``SortKey/group``).
                    keys[index].group._withUnsafeGuaranteedRef { group in
                        keys[index].first = group.firstLiveMember
                        keys[index].last = group.lastLiveMember
                    }
                }
                if keys[index].first < previousFirst {
                    isSorted = false
                }
                previousFirst = keys[index].first
            }
            if !isSorted {
                keys.sort { $0.first < $1.first }
            }
            var previousLast: UInt64 = 0
            for key in keys where key.first != .max {
                guard key.first > previousLast else {
                    run.inMemberOrder = false
                    break
                }
                previousLast = key.last
            }
            return run
        }
    }

    /// The call order of run `index` of the pass in progress (closure subscribers interleave by
    /// it).
    func runOrder(at index: Int) -> UInt64 {
        guard eachGroupIsARun else { return runs[index].order }
        // Guaranteed: the pass's fired list (or `firedSoleGroup`'s rule) keeps the group alive
        // until `endPass()`, and debug builds count the passes holding it (`passHolds`).
        guard firedSoleGroup == nil else {
            return firedGroup(at: index)._withUnsafeGuaranteedRef {
                $0.orderInPass(passNumber, of: ObjectIdentifier(self))
            }
        }
        // The entry has the order the group had as the pass began, which is its order in the
        // pass; a vacant place's, the order of the group that left it (the vacancy's own is 0).
        assert(isFiredListInStep, "the fired groups' buffer out of step with their list")
        assert(
            firedEntriesBuffer[index].isVacant
                || firedGroup(at: index)._withUnsafeGuaranteedRef {
                    $0.orderInPass(passNumber, of: ObjectIdentifier(self))
                } == firedEntriesBuffer[index].order,
            "a fired entry's order out of step with its group's order in the pass")
        return firedEntriesBuffer[index].order
    }

    /// Fired group `index` of a pass that fired one node, unretained: `firedGroups` or the rule of
    /// `firedSoleGroup` keeps it alive until `endPass()`.
    @inline(__always)
    private func firedGroup(at index: Int) -> Unmanaged<MemberGroup> {
        if let firedSoleGroup {
            precondition(index == 0, "a fired group index out of range")
            return firedSoleGroup
        }
        assert(isFiredListInStep, "the fired groups' buffer out of step with their list")
        return Unmanaged.passUnretained(firedGroupsBuffer[index])
    }

    /// Whether `firedGroupsBuffer` and `firedEntriesBuffer` are the buffers of `firedGroups` and
    /// `firedEntries` (debug builds check it wherever a pass reads them).
    private var isFiredListInStep: Bool {
        firedGroups.withUnsafeBufferPointer {
            $0.baseAddress == firedGroupsBuffer.baseAddress && $0.count == firedGroupsBuffer.count
        }
            && firedEntries.withUnsafeBufferPointer {
                $0.baseAddress == firedEntriesBuffer.baseAddress && $0.count == firedEntriesBuffer.count
            }
    }

    /// Calls the members of fired group `index` of a pass that fired one node, where each group
    /// is a run of its own (one consumer's).
    private func deliverGroupRun(_ index: Int, state: UnsafeMutableRawPointer) {
        // A group whose consumer left during the pass is skipped (see `isDue`): if it came back,
        // here or in another engine, it heard the change as it came back.
        let pass = passNumber
        cursor.order = runOrder(at: index)
        firedGroup(at: index)._withUnsafeGuaranteedRef { group in
            if isDue(group, inPass: pass) { group.deliverAll(state, drain) }
        }
    }

    /// Calls the members of `run` (one consumer's fired groups in a pass that fired several
    /// nodes), whose groups are in `keys` (the pass's `sortKeys`, borrowed for the whole delivery
    /// by the caller), in member order.
    ///
    /// Borrowing the keys once for every run is what keeps a pass of many consumers linear in
    /// its callbacks alone: taking the buffer per run retains and releases it per consumer (two
    /// atomic operations on one shared object, about a third of a pass's time with a thousand
    /// consumers that fired).
    private func deliverRun(_ run: Run, of keys: UnsafeBufferPointer<SortKey>, state: UnsafeMutableRawPointer) {
        // A group whose consumer left during the pass is skipped (see `isDue`).
        let pass = passNumber
        cursor.order = run.order
        // The keys the caller borrowed are still the engine's list: callbacks of earlier runs
        // changed nothing in it (a pass never starts before `endPass()`), checked in debug builds.
        assert(
            sortKeys.withUnsafeBufferPointer { $0.baseAddress == keys.baseAddress && $0.count == keys.count },
            "the sort keys changed while a pass delivered from them")
        // The run's groups stay alive until the pass ends (see ``SortKey/group``).
        let keys = UnsafeBufferPointer(rebasing: keys[run.start..<run.end])
        if run.inMemberOrder {
            // One group; or one member per group (closure selectors, key paths on distinct
            // fields), sorted by it already; or groups whose members do not interleave: group
            // after group is member order, with no merge. Found as the pass began, and still
            // so: members added since wait for the pass's end, removals only take some out. (A
            // group the pass skips is not called: its consumer left, and maybe came back with
            // members admitted as it came; those are called where it came back.)
            assert(
                membersFollowEachOther(
                    keys.lazy.map { $0.group.takeUnretainedValue() }.filter { self.isDue($0, inPass: pass) }),
                "a consumer's fired groups came to interleave during a pass")
            for key in keys {
                key.group._withUnsafeGuaranteedRef { group in
                    if isDue(group, inPass: pass) { group.deliverAll(state, drain) }
                }
            }
        } else {
            let due = keys.lazy.map { $0.group.takeUnretainedValue() }.filter { self.isDue($0, inPass: pass) }
            deliver(Array(due), ordered: false, state: state)
        }
    }

    /// Whether every member of each of `groups` comes before every member of the next one, as the
    /// lists are now: what ``Run/inMemberOrder`` recorded as the pass began, checked again by
    /// debug builds before the run is called. A member added meanwhile waits for the pass's end
    /// (see ``admit(_:into:state:isAdding:)``) and a removal only takes one out, so a delivery
    /// cannot make them interleave.
    ///
    /// - Complexity: O(k) for k groups (two questions to each group's list).
    private func membersFollowEachOther(_ groups: some Sequence<MemberGroup>) -> Bool {
        var previousLast: UInt64 = 0
        for group in groups {
            let first = group.firstLiveMember
            guard first != .max else { continue }  // no live member
            guard first > previousLast else { return false }
            previousLast = group.lastLiveMember
        }
        return true
    }

    /// Calls `body` with a function that calls the members of run `index` of the pass in progress
    /// (one consumer's fired groups), in member order, for a caller that interleaves the runs by
    /// ``runOrder(at:)`` with calls of its own: a store's closure subscribers. The pass's sort
    /// keys are borrowed once for the whole of `body`, not once per run (see
    /// ``deliverRun(_:of:state:)``).
    func withRunDelivery(state: UnsafeMutableRawPointer, _ body: (_ deliverRun: (_ index: Int) -> Void) -> Void) {
        guard !eachGroupIsARun else {
            body { deliverGroupRun($0, state: state) }
            return
        }
        // The buffer outlives the callbacks: `sortKeys` and `runs` change only in `evaluate` and
        // `endPass()`, never during a pass (`evaluate` asserts it).
        sortKeys.withUnsafeBufferPointer { keys in
            body { index in deliverRun(runs[index], of: keys, state: state) }
        }
    }

    /// Calls every run of the pass in progress, in order (when no closure subscriber interleaves).
    func deliverRuns(state: UnsafeMutableRawPointer) {
        guard eachGroupIsARun else {
            // One borrow of the keys for every run (see ``deliverRun(_:of:state:)``). The buffer
            // outlives the callbacks: `sortKeys` changes only in `evaluate` and `endPass()`, never
            // during a pass (`evaluate` asserts it); `runs` likewise, read afresh for each run.
            sortKeys.withUnsafeBufferPointer { keys in
                for index in runs.indices {
                    deliverRun(runs[index], of: keys, state: state)
                }
            }
            return
        }
        let drain = drain
        if let firedSoleGroup {
            // One consumer's group (a store with one `StateConsumer`, most often).
            firedSoleGroup._withUnsafeGuaranteedRef { group in
                guard isDue(group, inPass: passNumber) else { return }
                cursor.order = group.order
                group.deliverAll(state, drain)
            }
            return
        }
        // Unretained: `firedGroups` keeps each group alive until `endPass()`, and changes only in
        // `evaluate` and `endPass()`, never during a pass (`evaluate` asserts it), so its buffer
        // outlives the callbacks.
        assert(isFiredListInStep, "the fired groups' buffer out of step with their list")
        let groups = firedGroupsBuffer
        do {
            guard groups.count > 1 else {
                // One consumer (the usual case of a store with one `StateConsumer`): its group.
                guard let group = groups.first else { return }
                Unmanaged.passUnretained(group)._withUnsafeGuaranteedRef { group in
                    guard isDue(group, inPass: passNumber) else { return }
                    cursor.order = group.order
                    group.deliverAll(state, drain)
                }
                return
            }
            // One node fired: its groups are of one type (one selection of one store's state), and
            // the loop over them runs in code compiled for it, at one call level (see
            // ``MemberGroup/deliverGroups``).
            let level = drain.beginCalls()
            // Like `firedGroups`, `firedEntries` changes only in `evaluate` and `endPass()`.
            // The rows only if they did not change since the pass recorded their version, after
            // every selector ran: then they describe the groups the pass fired. Nothing runs in
            // between today (`Store.notify`, `StateConsumer.feed`); the check keeps it so.
            let entries = firedEntriesBuffer
            assert(
                firedRowsUnretained?.toOpaque() == firedRows.map { Unmanaged.passUnretained($0).toOpaque() },
                "the fired rows' unretained copy out of step with the rows")
            // The loop comes from a group, not a vacancy (a node with vacancies has two groups or
            // more, see ``SelectionNode/groups``); vacancies before it cost a read of their entry.
            var firstGroup = 0
            while entries[firstGroup].isVacant {
                firstGroup += 1
            }
            Unmanaged.passUnretained(groups[firstGroup])._withUnsafeGuaranteedRef { first in
                // Unretained: `firedRows` holds them until `endPass()`.
                guard let rows = firedRowsUnretained,
                    rows._withUnsafeGuaranteedRef({ $0.version == firedRowsVersion })
                else {
                    first.deliverGroups(
                        groups, entries, nil, state, drain, level, passNumber, ObjectIdentifier(self), cursor)
                    return
                }
                rows._withUnsafeGuaranteedRef { rows in
                    first.deliverGroups(
                        groups, entries, rows, state, drain, level, passNumber, ObjectIdentifier(self), cursor)
                }
            }
            drain.endCalls(level)
        }
    }

    /// Runs `body` with the `.instantly` calls of members added meanwhile (by the callbacks it
    /// makes) held, and makes them when it returns, in the order the members were added: never
    /// inside `add`, always after the calls of members added before them. Inside a pass, which
    /// holds them already, they wait for its end.
    func holdingInstantCalls(_ body: () -> Void) {
        guard !holdsInstantCalls else { return body() }
        holdsInstantCalls = true
        body()
        makeHeldInstantCalls()
        holdsInstantCalls = false
    }

    /// Makes the held `.instantly` calls (see ``holdingInstantCalls(_:)``).
    private func makeHeldInstantCalls() {
        // In the order the members were added; a call may add more (they join the queue) or
        // remove some (they are skipped).
        // Each list is touched only when it holds something: emptying an empty array of references
        // still costs a call into the standard library's unspecialised code.
        guard !instantCallsAfterPass.isEmpty else { return }
        var next = 0
        while next < instantCallsAfterPass.count {
            let due = instantCallsAfterPass[next]
            next += 1
            guard due.registration.engine === self,
                due.registration.groupOfMember.element(due.member) === due.group
            else {
                continue  // removed, or its consumer left, before its call
            }
            due.call(due.group, due.state, drain)
        }
        instantCallsAfterPass.removeAll()
    }

    /// Ends a pass: forgets what fired, and lets members added meanwhile join their groups.
    func endPass() {
        makeHeldInstantCalls()
        holdsInstantCalls = false
        isPassing = false
        if !joinedDuringPass.isEmpty {
            for group in joinedDuringPass {
                group.endIteration()
            }
            joinedDuringPass.removeAll()
        }
        if !runs.isEmpty {
            runs.removeAll(keepingCapacity: true)
        }
        if !sortKeys.isEmpty {
            #if DEBUG
                // Every group is alive still: those that left are in `leftDuringPass`.
                for key in sortKeys {
                    key.group._withUnsafeGuaranteedRef { $0.passHolds -= 1 }
                }
            #endif
            // Unretained keys: emptying the list releases nothing, and keeps its buffer.
            sortKeys.removeAll(keepingCapacity: true)
        }
        // Released last, with the pass over: releasing a group that left during the pass may run
        // a deinit that removes another consumer. Nothing of the pass stays behind: a group that
        // left keeps nothing of its consumer's alive past the pass.
        if !firedEntries.isEmpty {
            firedEntriesBuffer = UnsafeBufferPointer(start: nil, count: 0)
            firedEntries = []
        }
        if firedRows != nil {
            firedRowsUnretained = nil
            firedRows = nil
        }
        if let group = firedSoleGroup {
            #if DEBUG
                group._withUnsafeGuaranteedRef { $0.passHolds -= 1 }
            #endif
            _ = group
            firedSoleGroup = nil
        }
        var skipped: [MemberGroup] = []
        if !skippedDuringPass.isEmpty {
            for group in skippedDuringPass {
                group.forgetSkip(inPass: passNumber, of: ObjectIdentifier(self))
            }
            swap(&skipped, &skippedDuringPass)
        }
        // A pass that fired nothing (most of them) has nothing to release: not even an empty
        // list, whose release is a call into the runtime.
        guard !firedGroups.isEmpty || !leftDuringPass.isEmpty || !skipped.isEmpty else { return }
        let fired = firedGroups
        firedGroupsBuffer = UnsafeBufferPointer(start: nil, count: 0)
        firedGroups = []
        var left: [MemberGroup] = []
        swap(&left, &leftDuringPass)
        withExtendedLifetime((fired, left, skipped)) {}
    }

    /// Calls the members of several groups of one consumer interleaved by member identifier (the
    /// order they were added), as if each were alone: a k-way merge.
    ///
    /// - Complexity: O(m log k) for m members in k groups.
    private func deliver(_ groups: [MemberGroup], ordered: Bool, state: UnsafeMutableRawPointer) {
        var heap = MemberHeap()
        var cursors = [Int](repeating: 0, count: groups.count)
        var ends = [Int](repeating: 0, count: groups.count)
        for (index, group) in groups.enumerated() {
            group.beginIteration()
            ends[index] = group.slotCount
            let slot = group.liveSlot(from: 0)
            cursors[index] = slot
            if slot < ends[index] {
                heap.push(member: group.identifier(atSlot: slot), group: index)
            }
        }
        while let (_, index) = heap.popMin() {
            let group = groups[index]
            let slot = cursors[index]
            group.deliverSlot(slot, state, drain)
            let next = group.liveSlot(from: slot + 1)
            cursors[index] = next
            if next < ends[index] {
                heap.push(member: group.identifier(atSlot: next), group: index)
            }
        }
        for group in groups {
            group.endIteration()
        }
    }
}

/// A binary min-heap of (member identifier, group index), for merging a consumer's fired groups.
private struct MemberHeap {
    private var items: [(member: UInt64, group: Int)] = []

    mutating func push(member: UInt64, group: Int) {
        items.append((member, group))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].member < items[parent].member else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() -> (member: UInt64, group: Int)? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < items.count, items[left].member < items[smallest].member { smallest = left }
                if right < items.count, items[right].member < items[smallest].member { smallest = right }
                guard smallest != parent else { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }
}
