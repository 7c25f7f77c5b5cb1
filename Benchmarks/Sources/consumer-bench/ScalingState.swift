import ReduxConsumer

/// The state of the scaling scenarios (N1–N3, P1–P3): one `Int` slot per selector, so that a
/// dispatch can change exactly the chosen number of selected values, plus two fields for the
/// layouts where every consumer watches one key path.
struct ScalingState: Sendable {
    /// One slot per selector of N1 and N3; selector `i` reads `slots[i]`.
    var slots: [Int]
    /// The one key path of N2 and P1.
    var shared = 0
    /// A field no consumer watches: changing it fires nothing.
    var other = 0

    /// A state with `slots` zeroed slots.
    init(slots: Int = 0) {
        self.slots = Array(repeating: 0, count: slots)
    }

    /// Applies `action`: the reducer of the scaling stores, and what their floors run in place.
    ///
    /// - Complexity: O(the values it changes), never O(`slots.count`).
    mutating func apply(_ action: ScalingAction) {
        switch action {
        case .bump(let period, let round):
            var slot = ScalingAction.firstSlot(period: period, round: round)
            while slot < slots.count {
                slots[slot] &+= 1
                slot += period
            }
        case .bumpShared:
            shared &+= 1
        case .bumpOther:
            other &+= 1
        }
    }
}

/// The actions of the scaling scenarios; every change adds one, so each callback's `new` is its
/// `old` plus one (what the scenarios check).
enum ScalingAction: Action {
    /// Adds one to every slot `i` with `(i + round) % period == 0`: one slot in `period`, a
    /// different one each round, so every slot changes once every `period` rounds.
    case bump(period: Int, round: Int)
    /// Adds one to ``ScalingState/shared``.
    case bumpShared
    /// Adds one to ``ScalingState/other``.
    case bumpOther

    /// The first slot `bump(period:round:)` changes.
    static func firstSlot(period: Int, round: Int) -> Int {
        (period - round % period) % period
    }

    /// How many of the slots `0..<slots` `bump(period:round:)` changes.
    static func changedSlots(_ slots: Int, period: Int, round: Int) -> Int {
        let first = firstSlot(period: period, round: round)
        return first < slots ? (slots - 1 - first) / period + 1 : 0
    }
}

/// The reducer of every scaling store.
let scalingReducer = Reducer<ScalingState> { (state, action: ScalingAction) in
    state.apply(action)
}

extension Sink {
    /// Records one callback of a value that goes up by one per change; the checksum counts the
    /// callbacks whose `old` was not the value before `new` (a stale or skipped value).
    func recordStep(from old: Int, to new: Int) {
        record(new &- old == 1 ? 0 : 1)
    }
}
