extension StateConsumer {
    /// A new member identifier, counted as live from now on (its add admits it only if it is still
    /// live when the add runs), and the host to admit it on; `owner` is the member's owner, for an
    /// `owner:` member, and `isIsolated` says whether it runs on an actor.
    @usableFromInline
    func reserveMember(owner: (any OwnerTracking)?, isIsolated: Bool) -> ReservedMember {
        control.withLock { control in
            control.lastMemberID += 1
            control.live.insert((), identifier: control.lastMemberID)
            if let owner {
                control.addOwnedMember(control.lastMemberID, owner: owner)
            }
            if isIsolated {
                control.hasIsolatedMembers = true
            }
            return ReservedMember(id: control.lastMemberID, host: control.currentHost())
        }
    }

    /// Registers one member: every public `add` ends here, through the `@inlinable` helpers in
    /// `StateConsumer+Add.swift`, which build its placement in the caller's module.
    ///
    /// The member is admitted at once with the host's current state when the consumer is
    /// subscribed (its `.instantly` call happens here), or waits for the first state otherwise. From
    /// inside another store's callbacks while this consumer's store is busy on a third thread, the
    /// add is queued behind the store's current action; removing the member before it ran cancels
    /// it.
    ///
    /// `place` is used only while this call runs, so its context stays on the caller's stack; an add
    /// that must wait (queued, or for a first state) asks `keeping` for an enrollment it can keep.
    /// `reserved.host` was the consumer's host when the member was reserved: if the consumer has
    /// moved since, the add follows it.
    @usableFromInline
    func enroll(
        _ reserved: ReservedMember,
        key: GroupKey?,
        fireInstantly: ((MemberGroup, UnsafeMutableRawPointer, Drain) -> Void)?,
        place: (Enrollment.Placement) -> MemberGroup?,
        keeping: () -> Enrollment
    ) -> ConsumerToken {
        let host = reserved.host
        ThreadContext.withCurrent { context in
            host.drain.submit(.control, generation: context.generation, context: context) {
                admit(reserved.id, key: key, fireInstantly: fireInstantly, on: host, place: place, keeping: keeping)
            } queueing: {
                let enrollment = keeping()
                return { [self] in admit(enrollment, on: host) }
            }
        }
        return ConsumerToken(id: reserved.id, link: link)
    }

    /// Admits a kept enrollment on `host` (see ``admit(_:key:fireInstantly:on:place:keeping:)``).
    private func admit(_ enrollment: Enrollment, on host: ConsumerHost) {
        admit(
            enrollment.id, key: enrollment.key, fireInstantly: enrollment.fireInstantly, on: host,
            place: enrollment.place, keeping: { enrollment })
    }

    /// Admits a member on `host`, from a job of its drain; follows the consumer if it moved to
    /// another host before the job ran. `place` is used during this call only; `keeping` gives an
    /// enrollment to keep when the member must wait.
    private func admit(
        _ id: UInt64,
        key: GroupKey?,
        fireInstantly: ((MemberGroup, UnsafeMutableRawPointer, Drain) -> Void)?,
        on host: ConsumerHost,
        place: (Enrollment.Placement) -> MemberGroup?,
        keeping: () -> Enrollment
    ) {
        let verdict = control.withLock { control -> AddVerdict in
            guard control.home === host else { return .moved }
            // Removed before its add ran (queued behind another thread's work): never admitted.
            return control.live.contains(id) ? .admit : .cancelled
        }
        switch verdict {
        case .admit:
            let registration = members.registration(in: host)
            if let engine = registration.engine,
                host.withCurrentState({
                    engine.admit(
                        id, key: key, fireInstantly: fireInstantly, into: registration, state: $0, isAdding: true,
                        place: place)
                })
            {
                return
            }
            registration.wait(keeping())
        case .cancelled:
            return  // removed before its add ran
        case .moved:
            let kept = keeping()
            onHome(.control) { [self] _, host in admit(kept, on: host) }
        }
    }

    /// Starts (or joins) a subscription of this consumer to `host`'s store; returns the
    /// subscription's epoch and whether this is its first handle.
    func beginSubscription(to host: ConsumerHost) -> (epoch: UInt64, isFirst: Bool) {
        var forgotten: ConsumerHost?
        // Released after the lock (see `forgetEndedStore`).
        defer { withExtendedLifetime(forgotten) {} }
        return control.withLock { control in
            forgotten = control.forgetEndedStore()
            if let subscription = control.subscription {
                requireProperUse(
                    subscription.host === host,
                    "StateConsumer<\(State.self)> is subscribed to \(subscription.host) and was subscribed to \(host) too: a consumer belongs to one store at a time. Cancel the first subscription before subscribing it elsewhere, or use one consumer per store."
                )
                control.subscription?.handles += 1
                return (subscription.epoch, false)
            }
            control.lastEpoch += 1
            control.subscription = (host, 1, control.lastEpoch)
            return (control.lastEpoch, true)
        }
    }

    /// Drops one handle of the subscription `epoch`; when it was the last (the subscription ends),
    /// runs `admitRemoval` under the same lock and returns its result.
    ///
    /// A new subscription begins under that lock too, so its attachment always finds the removal
    /// of the registration from the old one admitted: running, or queued on the store's drain.
    func endSubscription<Admission>(epoch: UInt64, admitRemoval: () -> Admission) -> Admission? {
        control.withLock { control in
            guard let subscription = control.subscription, subscription.epoch == epoch else { return nil }
            if subscription.handles > 1 {
                control.subscription?.handles -= 1
                return nil
            }
            control.subscription = nil
            return admitRemoval()
        }
    }

    /// Ends the subscription to `host`'s store, which is gone, and brings the registration home:
    /// the consumer may then be subscribed elsewhere or fed by hand, its members keeping their
    /// last values. Call from a job of `host`'s drain; returns what pending removals took out, to
    /// release once the caller's work is done.
    func storeDidEnd(_ host: ConsumerHost) -> [any Sendable] {
        let isSubscribed = control.withLock { control in
            guard control.subscription?.host === host else { return false }
            control.subscription = nil
            return true
        }
        guard isSubscribed else { return [] }
        routes.withdrawAll()
        return leave(host)
    }

    /// Withdraws the calls posted and not made for a subscription to `host`'s store whose removal
    /// was queued on its busy drain, unless that removal's ``leave(_:)`` already ran (`hasLeft`,
    /// set once it has) or the registration was handed on from `host`: the calls pending then may
    /// be the next subscription's or hand-fed states'. Until either, every call pending is
    /// `host`'s, even when a new subscription began: its attachment or hand-over is queued behind.
    func withdrawBeforeLeaving(_ host: ConsumerHost, hasLeft: Lock<Bool>) {
        let withdrawn = control.withLock { control -> [any Sendable] in
            guard control.home === host else { return [] }
            return hasLeft.withLock { hasLeft in hasLeft ? [] : routes.withdrawPending() }
        }
        // Released after the locks: a value a withdrawn call held may run a `deinit`.
        withExtendedLifetime(withdrawn) {}
    }

    /// Moves the registration toward `host` (a store's, as subscription `epoch` to it begins);
    /// returns the host it must be handed over from first (another store's, or its own busy host
    /// that the caller cannot wait for), or `nil` when it will be on `host`'s drain by the time a
    /// job submitted there after this call runs.
    ///
    /// From the consumer's own host, the move runs on that host's drain, so it is ordered with
    /// states fed by hand; it detaches the registration from its own engine there, keeping its
    /// members' last values, and does nothing if the subscription ended before it ran (subscribed
    /// and cancelled inside one reducer, where the move waits for the reducer to return and the
    /// cancellation does not): the consumer stays home, free to be fed by hand. From a store whose
    /// subscription was cancelled while it was busy on another thread, the removal is still queued
    /// on that store's drain: the caller hands the registration over there (see
    /// ``handOver(from:to:epoch:)``), never from here, where it may still be in that store's engine.
    func move(to host: ConsumerHost, epoch: UInt64) -> ConsumerHost? {
        let (from, own) = control.withLock { control -> (ConsumerHost?, ConsumerHost?) in
            guard let home = control.home else {
                // Nowhere: `host`'s from now on, while the subscription is on, so that a removal
                // or an add from another thread before the attachment goes to `host`'s drain
                // (behind it) instead of claiming the consumer's own host in between.
                if control.subscription?.epoch == epoch, control.subscription?.host === host {
                    control.home = host
                }
                return (nil, nil)
            }
            // On `host` already, a queued removal of an earlier subscription runs before the
            // attachment.
            guard home !== host else { return (nil, nil) }
            return (home, control.existingOwnHost)
        }
        guard let from else { return nil }
        guard from === own else { return from }
        // A thread inside other work cannot wait for the own drain: the move would be queued there
        // and the attachment run before it, so the caller hands it over as from a store.
        let context = ThreadContext.current
        if context.isHolder, !context.owns(from.drain) { return from }
        let garbage = Garbage()
        from.drain.submit(.control, generation: ThreadContext.current.generation) { [self] in
            garbage.keep(hand(from: from, to: host, ifSubscribed: epoch))
        }
        withExtendedLifetime(garbage) {}
        return nil
    }

    /// Hands the registration from `from`, the host of a store whose subscription ended and whose
    /// queued removal has run, to `host`, for subscription `epoch`; call from a job of `from`'s
    /// drain. Returns what pending removals took out, to release once the caller's work is done.
    func handOver(from: ConsumerHost, to host: ConsumerHost, epoch: UInt64) -> [any Sendable] {
        hand(from: from, to: host, ifSubscribed: epoch)
    }

    /// Whether subscription `epoch` to `host` is still on and the registration is on `host`'s
    /// drain (it claims `host` if it is nowhere): the attachment's check, from a job of `host`'s
    /// drain.
    func arrive(at host: ConsumerHost, epoch: UInt64) -> Bool {
        control.withLock { control in
            guard control.subscription?.epoch == epoch, control.subscription?.host === host else { return false }
            if control.home == nil { control.home = host }
            assert(control.home === host, "a consumer attached to a store while its registration is elsewhere")
            return control.home === host
        }
    }

    /// Takes the registration out of `host`'s engine, to go back to the consumer's own host (made
    /// when next needed); call from a job of `host`'s drain. Returns what removals took out, to
    /// release once the caller's work is done.
    ///
    /// The registration stays confined to `host`'s drain until the job in progress ends: the
    /// consumer may be leaving from inside one of its own callbacks, and the pass that called it
    /// still walks its members when the callback returns. Meanwhile other threads' removals and
    /// additions go through `host`'s drain (a removal then waits for the call in progress), and a
    /// state fed by hand follows once the pass is over.
    ///
    /// The calls the store posted to the consumer's queue or actors and that were not made yet are
    /// withdrawn here, in order with the store's states: a new subscription's attachment, and a
    /// state fed by hand, queue behind this job, so their calls are never taken for this store's.
    func leave(_ host: ConsumerHost) -> [any Sendable] {
        let isHere = control.withLock { $0.home === host }
        var removed = hand(from: host, to: nil)
        if isHere { removed += routes.withdrawPending() }
        host.drain.afterCurrentJob(generation: ThreadContext.current.generation) { [self] in
            let removed = release(host)
            withExtendedLifetime(removed) {}
        }
        return removed
    }

    /// Lets go of `host`, a store's host the registration stayed on after its subscription ended
    /// (see ``leave(_:)``), unless a new subscription is on (its attachment or hand-over is queued
    /// on `host`'s drain, behind this job). Call from a job of `host`'s drain outside any pass;
    /// returns what removals marked meanwhile took out, to release once the caller's work is done.
    func release(_ host: ConsumerHost) -> [any Sendable] {
        hand(from: host, to: nil, releasing: true)
    }

    /// Moves the registration from `from` to `to` (`nil`: no host until one is needed), from a job
    /// of `from`'s drain: detaches it from `from`'s engine and does the member removals other
    /// threads marked on that drain, all under the consumer's lock, so no removal decided against
    /// `from` is lost and none runs against `to` before the registration is there.
    ///
    /// With `epoch`, it moves only if subscription `epoch` to `to` is still on; if that one ended
    /// and no other began, it lets go of `from` instead. With `to == nil` it stays confined to
    /// `from` until ``release(_:)`` (see ``leave(_:)``), which lets go of `from` only if no
    /// subscription is on.
    private func hand(
        from: ConsumerHost,
        to: ConsumerHost?,
        ifSubscribed epoch: UInt64? = nil,
        releasing: Bool = false
    ) -> [any Sendable] {
        control.withLock { control in
            var to = to
            var releasing = releasing
            if let epoch, control.subscription?.epoch != epoch || control.subscription?.host !== to {
                // The subscription it was moving for has ended: a registration that waited here
                // for it goes home, unless another subscription began (whose own job moves it).
                guard control.subscription == nil, control.home === from else { return [] }
                to = nil
                releasing = true
            }
            if releasing, control.subscription != nil {
                return []  // subscribed again since it left: it stays for that subscription
            }
            // A move for a subscription also claims a registration that its last store let go
            // (`nil`): nothing else can reach it meanwhile. Otherwise only from where it is: a
            // removal queued here that runs after its store's thread handed the consumer on finds
            // it on another drain, and must not touch it.
            guard control.home === from || (epoch != nil && to != nil && control.home == nil) else { return [] }
            let registration = members.registration(in: from)
            var removed: [any Sendable] = []
            for scope in from.drain.markedRemovals(of: members.tag) {
                switch scope {
                case .member(let id):
                    if let member = registration.remove(id) { removed.append(member) }
                case .everyMember(let last):
                    removed += registration.removeAll(through: last)
                case .registration:
                    removed += registration.removeAll().removed
                }
            }
            if registration.engine === from.engine.value {
                from.engine.value.detach(registration)
            }
            if to != nil || releasing {
                control.home = to
            }
            return removed
        }
    }

    /// The registration, for the store feeding the consumer; call from a job of `host`'s drain.
    func registration(in host: ConsumerHost) -> Registration {
        members.registration(in: host)
    }
}

/// What a queued or immediate add finds when its job runs.
private enum AddVerdict {
    /// The member is still wanted and the consumer still lives on the job's host.
    case admit
    /// The member was removed before its add ran.
    case cancelled
    /// The consumer moved to another host: the add follows it.
    case moved
}

/// A member identifier reserved by ``StateConsumer/reserveMember(owner:isIsolated:)``, and the host
/// its add runs on (found under the same lock).
@usableFromInline
struct ReservedMember {
    @usableFromInline let id: UInt64
    let host: ConsumerHost
}
