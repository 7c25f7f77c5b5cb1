/// Something that happened, sent to a store to change its state.
///
/// Feature modules and page stores bring their own action types, usually enums, so a reducer
/// written against one of them can `switch` exhaustively:
///
/// ```swift
/// enum CounterAction: Action {
///     case increment
///     case rename(String)
/// }
/// ```
///
/// Actions cross threads (any thread may dispatch), so they are `Sendable`.
public protocol Action: Sendable {}

/// A function that sends an action into a store: what middleware receives as `dispatch` and `next`.
public typealias DispatchFunction = @Sendable (any Action) -> Void
