import ReduxConsumer

/// How a randomized comparison adds one member: through `keyPath` (shared with every member on
/// the same key path) or through the equivalent closure `selector` (never shared), with one of the
/// three callback shapes picked by `label`. Both sides of a comparison add the same plan alike,
/// and their logs must be equal.
///
/// - Parameters:
///   - describe: What the whole-state shape records of the state.
///   - record: Logs one call.
///   - effect: What the callback does after logging.
func addKeyPathOrClosureMember<State: Sendable, Value: Equatable & Sendable>(
    to consumer: StateConsumer<State>,
    label: Int,
    usesKeyPaths: Bool,
    _ keyPath: any KeyPath<State, Value> & Sendable,
    _ selector: @escaping @Sendable (State) -> Value,
    options: ConsumeOptions,
    describe: @escaping @Sendable (State) -> String,
    record: @escaping @Sendable (String) -> Void,
    effect: @escaping @Sendable () -> Void
) -> ConsumerToken {
    switch (label % 3, usesKeyPaths) {
    case (0, true):
        return consumer.add(keyPath, options: options) { old, new in
            record("\(old) → \(new)")
            effect()
        }
    case (0, false):
        return consumer.add(selector, options: options) { old, new in
            record("\(old) → \(new)")
            effect()
        }
    case (1, true):
        return consumer.add(keyPath, options: options) { new in
            record("→ \(new)")
            effect()
        }
    case (1, false):
        return consumer.add(selector, options: options) { new in
            record("→ \(new)")
            effect()
        }
    case (_, true):
        return consumer.add(keyPath, options: options) { old, new, state in
            record("\(old) → \(new) in \(describe(state))")
            effect()
        }
    case (_, false):
        return consumer.add(selector, options: options) { old, new, state in
            record("\(old) → \(new) in \(describe(state))")
            effect()
        }
    }
}
