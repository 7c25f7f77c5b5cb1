/// A value computed from parts of the state — "the visible todos, sorted", "the total of the open
/// orders" — once per change of its inputs, however many consumers watch it (the idea of
/// reselect's selectors).
///
/// Build one from key paths of the state or from other derived values, and a pure function of
/// them; keep it (a `let` on the screen's or the feature's type) and watch it like a key path:
///
/// ```swift
/// let visibleTodos = Derived(\AppState.todos, \.filter) { todos, filter in
///     todos.filter(filter.matches).sorted(by: \.title)
/// }
/// consumer.add(visibleTodos) { old, new in tableView.reload(new) }
/// ```
///
/// ## When it computes
/// In each store it is used with, a derived value keeps its last inputs and its last output. On
/// every new state it reads its inputs and compares them with `==`; only when one changed does it
/// call the function again. Every consumer of a store watching the same derived value (consumers
/// of `StateConsumer`, pages' consumers, async sequences of changes) shares that one computation,
/// and its output is compared once (with `==`, or the `isEqual` a consumer gives) before any of
/// them fires. A derived value built on other derived values recomputes only down the branch whose
/// input changed.
///
/// Identity matters: two `Derived` values built separately are two selectors, each computed on its
/// own, even with the same inputs and function. Copies of one value share its identity.
///
/// `transform` must be a pure function of its inputs: it runs on whatever thread processes the
/// store, outside any lock, at most once per state.
public struct Derived<State: Sendable, Value: Sendable>: Sendable {
    @usableFromInline let definition: Definition

    /// The shared part of a derived value: how to read it, and its identity.
    @usableFromInline
    final class Definition: @unchecked Sendable {
        // @unchecked: immutable after `init`; the key paths and functions it holds were given as
        // `Sendable`.

        // The two functions take and return no generic type, and are not optional: a function
        // stored at a generic type (`Optional`'s payload is one) is called from specialised code
        // through a re-abstraction thunk allocated per call.

        /// Whether this value has inputs and a function (memoised), or is a key path of the state
        /// (read directly).
        @usableFromInline let hasInputs: Bool
        /// For a key path to a stored property: its byte offset in `State`, which a derived value
        /// reading it loads directly; -1 otherwise.
        @usableFromInline let storedOffset: Int
        /// Brings a memo made by `makeMemo` up to date for the cache's pass: reads the inputs,
        /// and calls the derivation function only when one of them changed.
        @usableFromInline let refresh:
            @Sendable (_ state: UnsafeMutableRawPointer, _ cache: DerivationCache, _ memo: AnyObject) -> Void
        /// Makes the memo (a ``DerivedInputsMemo``) of this value in a cache, with the inputs and
        /// output of the state given.
        @usableFromInline let makeMemo:
            @Sendable (_ state: UnsafeMutableRawPointer, _ cache: DerivationCache) -> AnyObject
        /// Set for a derived value that is a key path of the state.
        @usableFromInline let selection: Selection<State, Value>?

        @inlinable
        init(selection: Selection<State, Value>) {
            hasInputs = false
            if case .offset(let offset) = selection {
                storedOffset = offset
            } else {
                storedOffset = -1
            }
            refresh = { _, _, _ in preconditionFailure("a key path has no memo") }
            makeMemo = { _, _ in preconditionFailure("a key path has no memo") }
            self.selection = selection
        }

        @inlinable
        init(
            makeMemo: @escaping @Sendable (UnsafeMutableRawPointer, DerivationCache) -> AnyObject,
            refresh: @escaping @Sendable (UnsafeMutableRawPointer, DerivationCache, AnyObject) -> Void
        ) {
            hasInputs = true
            storedOffset = -1
            self.refresh = refresh
            self.makeMemo = makeMemo
            selection = nil
        }
    }

    /// A derived value that is the value at `keyPath`: a building block for derived values that
    /// mix key paths and other derived values.
    ///
    /// - Parameter keyPath: The property.
    @inlinable
    public init(_ keyPath: any KeyPath<State, Value> & Sendable) {
        definition = Definition(selection: Selection(keyPath))
    }

    /// A value computed by `transform` from the value of `input`, recomputed only when it changed
    /// (compared with `==`).
    ///
    /// - Parameters:
    ///   - input: Another derived value (use ``init(_:)`` for a key path).
    ///   - transform: A pure function of the input's value.
    @inlinable
    public init<A: Equatable & Sendable>(
        _ input: Derived<State, A>,
        transform: @escaping @Sendable (A) -> Value
    ) {
        let makeMemo: @Sendable (UnsafeMutableRawPointer, DerivationCache) -> AnyObject = { state, cache in
            let state = state.assumingMemoryBound(to: State.self)
            let memos = [input.memo(state, cache: cache)]
            let value = input.read(state, cache: cache, memo: memos[0])
            return DerivedInputsMemo(pass: cache.pass, inputs: value, output: transform(value), inputMemos: memos)
        }
        definition = Definition(makeMemo: makeMemo) { state, cache, memo in
            let memo = unsafeDowncast(memo, to: DerivedInputsMemo<A, Value>.self)
            memo.pass = cache.pass
            let value = input.read(
                state.assumingMemoryBound(to: State.self), cache: cache, inputMemos: memo.unretainedInputMemos, at: 0)
            guard value != memo.inputs else { return }
            let output = transform(value)
            memo.inputs = value
            memo.output = output
        }
    }

    /// A value computed by `transform` from the values of two inputs, recomputed only when one of
    /// them changed (compared with `==`).
    ///
    /// ```swift
    /// let openTotal = Derived(Derived(\AppState.orders), taxRate) { orders, rate in
    ///     orders.filter(\.isOpen).map(\.amount).reduce(0, +) * (1 + rate)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - a: The first input: another derived value (use ``init(_:)`` for a key path).
    ///   - b: The second input.
    ///   - transform: A pure function of the inputs' values.
    @inlinable
    public init<A: Equatable & Sendable, B: Equatable & Sendable>(
        _ a: Derived<State, A>,
        _ b: Derived<State, B>,
        transform: @escaping @Sendable (A, B) -> Value
    ) {
        let makeMemo: @Sendable (UnsafeMutableRawPointer, DerivationCache) -> AnyObject = { state, cache in
            let state = state.assumingMemoryBound(to: State.self)
            let memos = [a.memo(state, cache: cache), b.memo(state, cache: cache)]
            let values = (
                a.read(state, cache: cache, memo: memos[0]),
                b.read(state, cache: cache, memo: memos[1])
            )
            return DerivedInputsMemo(
                pass: cache.pass, inputs: values, output: transform(values.0, values.1), inputMemos: memos)
        }
        definition = Definition(makeMemo: makeMemo) { state, cache, memo in
            let memo = unsafeDowncast(memo, to: DerivedInputsMemo<(A, B), Value>.self)
            memo.pass = cache.pass
            let state = state.assumingMemoryBound(to: State.self)
            let values = (
                a.read(state, cache: cache, inputMemos: memo.unretainedInputMemos, at: 0),
                b.read(state, cache: cache, inputMemos: memo.unretainedInputMemos, at: 1)
            )
            guard values != memo.inputs else { return }
            let output = transform(values.0, values.1)
            memo.inputs = values
            memo.output = output
        }
    }

    /// A value computed by `transform` from the values of three inputs, recomputed only when one
    /// of them changed (compared with `==`).
    ///
    /// - Parameters:
    ///   - a: The first input: another derived value (use ``init(_:)`` for a key path).
    ///   - b: The second input.
    ///   - c: The third input.
    ///   - transform: A pure function of the inputs' values.
    @inlinable
    public init<A: Equatable & Sendable, B: Equatable & Sendable, C: Equatable & Sendable>(
        _ a: Derived<State, A>,
        _ b: Derived<State, B>,
        _ c: Derived<State, C>,
        transform: @escaping @Sendable (A, B, C) -> Value
    ) {
        let makeMemo: @Sendable (UnsafeMutableRawPointer, DerivationCache) -> AnyObject = { state, cache in
            let state = state.assumingMemoryBound(to: State.self)
            let memos = [a.memo(state, cache: cache), b.memo(state, cache: cache), c.memo(state, cache: cache)]
            let values = (
                a.read(state, cache: cache, memo: memos[0]),
                b.read(state, cache: cache, memo: memos[1]),
                c.read(state, cache: cache, memo: memos[2])
            )
            return DerivedInputsMemo(
                pass: cache.pass, inputs: values, output: transform(values.0, values.1, values.2), inputMemos: memos)
        }
        definition = Definition(makeMemo: makeMemo) { state, cache, memo in
            let memo = unsafeDowncast(memo, to: DerivedInputsMemo<(A, B, C), Value>.self)
            memo.pass = cache.pass
            let state = state.assumingMemoryBound(to: State.self)
            let values = (
                a.read(state, cache: cache, inputMemos: memo.unretainedInputMemos, at: 0),
                b.read(state, cache: cache, inputMemos: memo.unretainedInputMemos, at: 1),
                c.read(state, cache: cache, inputMemos: memo.unretainedInputMemos, at: 2)
            )
            guard values != memo.inputs else { return }
            let output = transform(values.0, values.1, values.2)
            memo.inputs = values
            memo.output = output
        }
    }

    /// A value computed by `transform` from the values of four inputs, recomputed only when one of
    /// them changed (compared with `==`).
    ///
    /// - Parameters:
    ///   - a: The first input: another derived value (use ``init(_:)`` for a key path).
    ///   - b: The second input.
    ///   - c: The third input.
    ///   - d: The fourth input.
    ///   - transform: A pure function of the inputs' values.
    @inlinable
    public init<A: Equatable & Sendable, B: Equatable & Sendable, C: Equatable & Sendable, D: Equatable & Sendable>(
        _ a: Derived<State, A>,
        _ b: Derived<State, B>,
        _ c: Derived<State, C>,
        _ d: Derived<State, D>,
        transform: @escaping @Sendable (A, B, C, D) -> Value
    ) {
        let makeMemo: @Sendable (UnsafeMutableRawPointer, DerivationCache) -> AnyObject = { state, cache in
            let state = state.assumingMemoryBound(to: State.self)
            let memos = [
                a.memo(state, cache: cache), b.memo(state, cache: cache), c.memo(state, cache: cache),
                d.memo(state, cache: cache),
            ]
            let values = (
                a.read(state, cache: cache, memo: memos[0]),
                b.read(state, cache: cache, memo: memos[1]),
                c.read(state, cache: cache, memo: memos[2]),
                d.read(state, cache: cache, memo: memos[3])
            )
            return DerivedInputsMemo(
                pass: cache.pass, inputs: values, output: transform(values.0, values.1, values.2, values.3),
                inputMemos: memos)
        }
        definition = Definition(makeMemo: makeMemo) { state, cache, memo in
            let memo = unsafeDowncast(memo, to: DerivedInputsMemo<(A, B, C, D), Value>.self)
            memo.pass = cache.pass
            let state = state.assumingMemoryBound(to: State.self)
            let values = (
                a.read(state, cache: cache, inputMemos: memo.unretainedInputMemos, at: 0),
                b.read(state, cache: cache, inputMemos: memo.unretainedInputMemos, at: 1),
                c.read(state, cache: cache, inputMemos: memo.unretainedInputMemos, at: 2),
                d.read(state, cache: cache, inputMemos: memo.unretainedInputMemos, at: 3)
            )
            guard values != memo.inputs else { return }
            let output = transform(values.0, values.1, values.2, values.3)
            memo.inputs = values
            memo.output = output
        }
    }

    /// A value computed by `transform` from the value at `keyPath`, recomputed only when it changed.
    ///
    /// - Parameters:
    ///   - keyPath: A property of the state.
    ///   - transform: A pure function of its value.
    @inlinable
    public init<A: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, A> & Sendable,
        transform: @escaping @Sendable (A) -> Value
    ) {
        self.init(Derived<State, A>(keyPath), transform: transform)
    }

    /// A value computed by `transform` from the values at two key paths, recomputed only when one
    /// of them changed.
    ///
    /// ```swift
    /// let visibleTodos = Derived(\AppState.todos, \.filter) { todos, filter in
    ///     todos.filter(filter.matches)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - a: The first property.
    ///   - b: The second property.
    ///   - transform: A pure function of their values.
    @inlinable
    public init<A: Equatable & Sendable, B: Equatable & Sendable>(
        _ a: any KeyPath<State, A> & Sendable,
        _ b: any KeyPath<State, B> & Sendable,
        transform: @escaping @Sendable (A, B) -> Value
    ) {
        self.init(Derived<State, A>(a), Derived<State, B>(b), transform: transform)
    }

    /// A value computed by `transform` from the values at three key paths, recomputed only when
    /// one of them changed.
    ///
    /// - Parameters:
    ///   - a: The first property.
    ///   - b: The second property.
    ///   - c: The third property.
    ///   - transform: A pure function of their values.
    @inlinable
    public init<A: Equatable & Sendable, B: Equatable & Sendable, C: Equatable & Sendable>(
        _ a: any KeyPath<State, A> & Sendable,
        _ b: any KeyPath<State, B> & Sendable,
        _ c: any KeyPath<State, C> & Sendable,
        transform: @escaping @Sendable (A, B, C) -> Value
    ) {
        self.init(Derived<State, A>(a), Derived<State, B>(b), Derived<State, C>(c), transform: transform)
    }
}
