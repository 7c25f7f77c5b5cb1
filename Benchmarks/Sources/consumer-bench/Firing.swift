import ReduxConsumer

/// What one dispatch of a scaling scenario changes, and so how many selectors fire.
enum Firing {
    /// Selector `i` reads slot `i`; each dispatch changes one slot in `period` (see
    /// ``ScalingAction/bump(period:round:)``): 1/`period` of the selectors fire, on average over
    /// `period` dispatches and exactly when `period` divides their number.
    case slots(period: Int)
    /// Every selector reads ``ScalingState/shared``; each dispatch changes it or not.
    case sharedKeyPath(changes: Bool)

    /// The state to start from, with `selectors` selectors.
    func initialState(selectors: Int) -> ScalingState {
        switch self {
        case .slots: ScalingState(slots: selectors)
        case .sharedKeyPath: ScalingState()
        }
    }

    /// The key path selector number `index` watches.
    func keyPath(_ index: Int) -> any KeyPath<ScalingState, Int> & Sendable {
        switch self {
        case .slots: \ScalingState.slots[index]
        case .sharedKeyPath: \ScalingState.shared
        }
    }

    /// The closure selector number `index` uses: the same value as ``keyPath(_:)``.
    func selector(_ index: Int) -> @Sendable (ScalingState) -> Int {
        switch self {
        case .slots: { $0.slots[index] }
        case .sharedKeyPath: { $0.shared }
        }
    }

    /// The action of dispatch number `round` (counted from 1).
    func action(round: Int) -> ScalingAction {
        switch self {
        case .slots(let period): .bump(period: period, round: round)
        case .sharedKeyPath(let changes): changes ? .bumpShared : .bumpOther
        }
    }

    /// How many of `selectors` selectors fire on dispatch number `round`.
    func firedSelectors(_ selectors: Int, round: Int) -> Int {
        switch self {
        case .slots(let period): ScalingAction.changedSlots(selectors, period: period, round: round)
        case .sharedKeyPath(let changes): changes ? selectors : 0
        }
    }

    /// How many of `selectors` selectors fire per dispatch, on average.
    func firedPerDispatch(_ selectors: Int) -> Double {
        switch self {
        case .slots(let period): Double(selectors) / Double(period)
        case .sharedKeyPath(let changes): changes ? Double(selectors) : 0
        }
    }

    /// "10% fire", "fired", "not fired".
    var label: String {
        switch self {
        case .slots(let period): "\(100 / period)% fire"
        case .sharedKeyPath(let changes): changes ? "fired" : "not fired"
        }
    }
}

/// Dispatches the actions of a ``Firing`` to a scaling store and counts the callbacks they must
/// cause, so a scenario can check the callbacks it saw.
final class ScalingDriver {
    let store: Store<ScalingState>
    let firing: Firing
    /// How many selectors watch the store (over all its consumers).
    let selectors: Int
    private(set) var dispatched = 0
    private(set) var expectedCallbacks = 0

    init(_ store: Store<ScalingState>, firing: Firing, selectors: Int) {
        self.store = store
        self.firing = firing
        self.selectors = selectors
    }

    /// Dispatches `count` actions.
    func run(_ count: Int) {
        for _ in 0..<count {
            dispatched += 1
            expectedCallbacks += firing.firedSelectors(selectors, round: dispatched)
            store.dispatch(firing.action(round: dispatched))
        }
    }
}
