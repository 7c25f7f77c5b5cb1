import ReduxConsumer

extension TestStore {
    /// A recording consumer of one selected value, made by ``TestStore/probe(_:named:)``: every
    /// time it fires, the test must say so with
    /// ``TestStore/assertFired(_:old:new:fileID:filePath:line:column:)``.
    public struct Probe<Value: Equatable & Sendable>: Sendable, Hashable {
        let id: Int

        /// How failure messages name the probe, such as `\MainState.count`.
        public let name: String
    }

    /// Adds a consumer of the value at `keyPath` to ``consumer`` that records every firing, so the
    /// test can assert which consumers an action fires, with their old and new values.
    ///
    /// A probe fires exactly when a screen's consumer on the same key path would: it is a rule
    /// such as "when the count changes, the label updates", checked without a UI. With
    /// ``Exhaustivity/on`` every firing must be asserted before the next step, so a consumer that
    /// fires when it should not fails the test.
    ///
    /// ```swift
    /// let countLabel = store.probe(\.count)
    /// store.send(MainAction.increment) { $0.count = 11 }
    /// store.assertFired(countLabel, old: 10, new: 11)
    /// store.send(MainAction.rename("Kim")) { $0.name = "Kim" }  // countLabel must not fire
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: The selected value, as a screen would select it.
    ///   - name: How failure messages name the probe; the key path's description by default.
    /// - Returns: The probe, to pass to `assertFired`.
    public func probe<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        named name: String? = nil
    ) -> Probe<Value> {
        let id = probeNames.count + 1
        let name = name ?? String(describing: keyPath)
        probeNames[id] = name
        consumer.add(keyPath) { [log] old, new in
            log.didFire(probeID: id, old: old, new: new)
        }
        return Probe(id: id, name: name)
    }

    /// Checks that the last step (a `send` or `receive`) fired `probe` with `old` and `new`.
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
    ///   - probe: The probe made by ``probe(_:named:)``.
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
        let isSameProbe = { (firing: EventLog<State>.Firing) in firing.probeID == probe.id }
        let hasValues = { (firing: EventLog<State>.Firing) in
            firing.old as? Value == old && firing.new as? Value == new
        }
        let index =
            exhaustivity == .on
            ? dueFirings.firstIndex(where: isSameProbe)
            : dueFirings.firstIndex { isSameProbe($0) && hasValues($0) }
        guard let index else {
            let fired = dueFirings.filter(isSameProbe).map { "\(rendered($0.old)) → \(rendered($0.new))" }
            let outcome = fired.isEmpty ? "it did not fire" : "it fired " + fired.joined(separator: ", ")
            reportFailure("Expected \(probe.name) to fire \(expectation) after \(lastStep), but \(outcome).", at: site)
            return
        }
        let firing = dueFirings.remove(at: index)
        if !hasValues(firing) {
            reportFailure(
                "\(probe.name) fired \(rendered(firing.old)) → \(rendered(firing.new)) after \(lastStep), "
                    + "expected \(expectation).",
                at: site
            )
        }
    }
}
