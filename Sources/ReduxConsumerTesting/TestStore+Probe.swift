import ReduxConsumer

extension TestStore {
    /// A recording consumer of one selected value (a key path or a ``Derived`` value), made by
    /// `TestStore.probe(_:named:isEqual:options:)`: every time it fires, the test must say so with
    /// ``TestStore/assertFired(_:old:new:fileID:filePath:line:column:)``.
    public struct Probe<Value: Equatable & Sendable>: Sendable, Hashable {
        let id: Int

        /// How failure messages name the probe, such as `\MainState.count`.
        public let name: String
    }

    /// Adds a consumer of the value at `keyPath` to ``consumer`` that records every firing, so the
    /// test can assert which consumers an action fires, with their old and new values.
    ///
    /// A probe fires exactly when a screen's consumer on the same key path, with the same options,
    /// would: it is a rule such as "when the count changes, the label updates", checked without a
    /// UI. With ``Exhaustivity/on`` every firing must be asserted before the next step, so a
    /// consumer that fires when it should not fails the test.
    ///
    /// ```swift
    /// let countLabel = store.probe(\.count)
    /// store.send(MainAction.increment) { $0.count = 11 }
    /// store.assertFired(countLabel, old: 10, new: 11)
    /// store.send(MainAction.rename("Kim")) { $0.name = "Kim" }  // countLabel must not fire
    /// ```
    ///
    /// With ``ConsumeOptions/instantly`` the probe fires once as it is added, with `old == new`;
    /// assert that firing before the next step, as any other.
    ///
    /// - Parameters:
    ///   - keyPath: The selected value, as a screen would select it.
    ///   - name: How failure messages name the probe; the key path's description by default.
    ///   - isEqual: Decides when two values count as the same (no firing), in place of `==`, as in
    ///     ``StateConsumer/add(_:isEqual:options:_:)-(KeyPath<State,Value>&Sendable,_,_,_)``; `nil`
    ///     (the default) compares with `==`.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``, as a screen's consumer
    ///     would use them.
    /// - Returns: The probe, to pass to `assertFired`.
    public func probe<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        named name: String? = nil,
        isEqual: (@Sendable (Value, Value) -> Bool)? = nil,
        options: ConsumeOptions = []
    ) -> Probe<Value> {
        addProbe(named: name ?? String(describing: keyPath), options: options) { [consumer] record in
            if let isEqual {
                consumer.add(keyPath, isEqual: isEqual, options: options, record)
            } else {
                consumer.add(keyPath, options: options, record)
            }
        }
    }

    /// Adds a consumer of a derived value (``Derived``) to ``consumer`` that records every firing,
    /// so the test can assert when the derived value changes, with its old and new values.
    ///
    /// The probe shares the derived value's one computation per state with every other consumer
    /// of it on this store, and fires exactly when a screen's consumer of it, with the same
    /// options, would:
    ///
    /// ```swift
    /// let openTotal = Derived(\CartState.items, \.discount) { items, discount in … }
    /// let total = store.probe(openTotal, named: "total label")
    /// store.send(CartAction.add(book)) { $0.items = [book] }
    /// store.assertFired(total, old: 0, new: 12)
    /// ```
    ///
    /// - Parameters:
    ///   - derived: The derived value, as a screen would watch it.
    ///   - name: How failure messages name the probe; `Derived<State, Value>` by default, so name
    ///     it when a test probes several.
    ///   - isEqual: Decides when two values count as the same (no firing), in place of `==`;
    ///     `nil` (the default) compares with `==`.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    /// - Returns: The probe, to pass to `assertFired`.
    public func probe<Value: Equatable & Sendable>(
        _ derived: Derived<State, Value>,
        named name: String? = nil,
        isEqual: (@Sendable (Value, Value) -> Bool)? = nil,
        options: ConsumeOptions = []
    ) -> Probe<Value> {
        addProbe(named: name ?? "Derived<\(State.self), \(Value.self)>", options: options) { [consumer] record in
            if let isEqual {
                consumer.add(derived, isEqual: isEqual, options: options, record)
            } else {
                consumer.add(derived, options: options, record)
            }
        }
    }

    /// Registers a probe: `add` adds its member to the consumer with the recording callback it is
    /// given. An `.instantly` firing, made during `add`, is due at once.
    private func addProbe<Value: Equatable & Sendable>(
        named name: String,
        options: ConsumeOptions,
        _ add: (@escaping @Sendable (Value, Value) -> Void) -> ConsumerToken
    ) -> Probe<Value> {
        let id = probeNames.count + 1
        probeNames[id] = name
        if options.contains(.instantly) {
            log.expectInstantFiring(of: id)
        }
        _ = add { [log] old, new in
            log.didFire(probeID: id, old: old, new: new)
        }
        let step = "probe(\(name))"
        dueFirings += log.takeLooseFirings().map { DueFiring(firing: $0, cause: step) }
        return Probe(id: id, name: name)
    }

    /// Checks that the last step (a `send` or `receive`, or adding an `.instantly` probe) fired
    /// `probe` with `old` and `new`.
    ///
    /// With ``Exhaustivity/on`` the probe's firings are checked in order, one per call; with
    /// ``Exhaustivity/off`` any firing of the last step with these values passes.
    ///
    /// ```swift
    /// store.send(MainAction.increment) { $0.count = 11 }
    /// store.assertFired(countLabel, old: 10, new: 11)
    /// ```
    ///
    /// - Parameters:
    ///   - probe: The probe made by `probe(_:named:isEqual:options:)`.
    ///   - old: The value the consumer should have been called with as old.
    ///   - new: The value the consumer should have been called with as new.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func assertFired<Value>(
        _ probe: Probe<Value>,
        old: Value,
        new: Value,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let expectation = "\(rendered(old)) → \(rendered(new))"
        let hasValues = { (due: DueFiring) in
            due.firing.old as? Value == old && due.firing.new as? Value == new
        }
        let index =
            exhaustivity == .on
            ? dueFirings.firstPosition(ofProbe: probe.id)
            : dueFirings.firstPosition(ofProbe: probe.id, where: hasValues)
        guard let index else {
            let fired = dueFirings.firings(ofProbe: probe.id).map {
                "\(rendered($0.firing.old)) → \(rendered($0.firing.new))"
            }
            let outcome = fired.isEmpty ? "it did not fire" : "it fired " + fired.joined(separator: ", ")
            reportFailure("Expected \(probe.name) to fire \(expectation) after \(lastStep), but \(outcome).", at: site)
            return
        }
        let due = dueFirings.remove(at: index)
        if !hasValues(due) {
            reportFailure(
                "\(probe.name) fired \(rendered(due.firing.old)) → \(rendered(due.firing.new)) after \(due.cause), "
                    + "expected \(expectation).",
                at: site
            )
        }
    }
}
