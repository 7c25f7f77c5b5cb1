extension StateConsumer {
    /// Calls `callback` with `owner`, the old and the new value whenever the value at `keyPath`
    /// changes, holding `owner` weakly.
    ///
    /// This is the way to write a screen, a session or a request that cannot leak: the callback
    /// gets the owner as an argument instead of capturing it, so the consumer never keeps its owner
    /// alive, even when the owner keeps the consumer (or the store feeding it) alive.
    ///
    /// ```swift
    /// final class MainScreen: Sendable {
    ///     let page: PageStore<MainState, AppState>
    ///
    ///     init(appStore: Store<AppState>) {
    ///         page = PageStore(global: appStore, initialState: { _ in MainState() }, reducer: mainReducer)
    ///         page.consumer.add(\.count, owner: self) { screen, old, new in screen.show(new) }
    ///     }
    /// }
    /// ```
    ///
    /// Once the owner is gone the member is inert: it never calls `callback` again, ``count`` leaves
    /// it out, and it removes itself from this ``StateConsumer`` the next time its value changes. To
    /// release what the callback captures at the very moment the owner goes, also put the token in
    /// a ``ConsumerBag`` the owner holds. Nothing in the member refers back to the consumer or the
    /// owner, so no cycle can keep either alive.
    ///
    /// - Parameters:
    ///   - keyPath: The selected property.
    ///   - owner: The object the callback works for; held weakly.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the owner, the last value seen and the new one.
    /// - Returns: A token to remove this consumer.
    @inlinable
    @discardableResult
    public func add<Owner: AnyObject & Sendable, Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        owner: Owner,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ owner: Owner, _ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        let link = OwnerLink(owner)
        let token = register(keyPath, options: options, owner: link, callback: .change(link.forwarding(callback)))
        link.attach(token)
        return token
    }

    /// Calls `callback` with `owner`, the old and the new value whenever the value `selector`
    /// computes changes, holding `owner` weakly.
    ///
    /// ```swift
    /// consumer.add({ $0.works.count }, owner: self) { screen, old, new in screen.showWorks(new) }
    /// ```
    ///
    /// Once the owner is gone the member is inert and removes itself at its next change, as with
    /// the key-path form.
    ///
    /// - Parameters:
    ///   - selector: Computes the selected value; must be a pure function of the state.
    ///   - owner: The object the callback works for; held weakly.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the owner, the last value seen and the new one.
    /// - Returns: A token to remove this consumer.
    @inlinable
    @discardableResult
    public func add<Owner: AnyObject & Sendable, Value: Equatable & Sendable>(
        _ selector: @escaping @Sendable (State) -> Value,
        owner: Owner,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ owner: Owner, _ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        let link = OwnerLink(owner)
        let token = register(
            .closure(selector), key: nil, options: options, owner: link, callback: .change(link.forwarding(callback)))
        link.attach(token)
        return token
    }
}
