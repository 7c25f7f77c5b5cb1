import ReduxConsumer

extension RecordingReader {
    /// Dispatches the recorded actions to `store`, in order, verifying the state after each.
    ///
    /// Make `store` from the recording's starting point and the reducer under investigation,
    /// without middleware that dispatches (the recording already holds the actions middleware
    /// dispatched: replaying them through it again would double them). Subscribers and consumers
    /// see the replay as they would the live session, so an `ActionLogger` prints every change:
    ///
    /// ```swift
    /// let reader = try RecordingReader<AppState>(contentsOfFile: "session.jsonl", codecs: codecs)
    /// let store = Store(initialState: reader.initialState, reducer: appReducer,
    ///                   middleware: [ActionLogger<AppState> { print($0) }.middleware])
    /// do {
    ///     try reader.replay(into: store)
    /// } catch {
    ///     print(error)   // session.jsonl:9: error: replay diverged after action 7, …
    /// }
    /// ```
    ///
    /// After each action whose state the recording fingerprints (a hash, or a snapshot), the
    /// store's state is compared with it; the replay stops at the first difference, after applying
    /// that action, so `store.state` is the diverged state. Call it from outside the store's own
    /// callbacks (from inside, dispatch is queued and the state read would come too early).
    /// The recording is streamed: memory stays bounded whatever its length.
    ///
    /// - Parameters:
    ///   - store: The store to replay into.
    ///   - lastIndex: The last action to replay, or `nil` for all of them. The replay stops after
    ///     it, without reading further.
    /// - Returns: The number of the last action replayed (0 if none).
    /// - Throws: ``ReplayError`` at the first bad line or divergence; the actions before it were
    ///   dispatched, none after.
    @discardableResult
    public func replay(into store: Store<State>, through lastIndex: Int? = nil) throws(ReplayError) -> Int {
        let verifiesHashes = hash != nil
        while lastIndex.map({ self.lastIndex < $0 }) ?? true {
            guard let step = try nextParsed() else { break }
            if case .action(let action) = step.content {
                store.dispatch(action)
            }
            if (verifiesHashes && step.hash != nil) || step.snapshot != nil {
                try verify(store.state, after: step)
            }
        }
        return self.lastIndex
    }
}
