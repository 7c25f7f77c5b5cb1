import ReduxConsumer
import ReduxConsumerTesting
import Testing

/// Promises of the README about `TestStore` that no other suite proved.
@Suite("Promise audit (TestStore)")
struct PromiseAuditTestingTests {
    /// README, "Testing a page": "The test store compares states and does not ask for a change: a
    /// step whose closure changes nothing passes when the state did not change either (TCA's
    /// fails with "Expected state to change")." And the other side: a closure that changes nothing
    /// fails when the state did change.
    @Test func aStepThatChangesNothingPassesWhenTheStateDidNotChange() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        let name = store.probe(\.user.name)
        store.send(ProfileAction.rename("Kim")) { _ in }  // the name already is "Kim"
        store.send(ProfileAction.rename("Kim"))
        expectFailure("State mismatch after send(rename(\"Lee\")):\n  ~ user.name: expected \"Kim\", actual \"Lee\"") {
            store.send(ProfileAction.rename("Lee")) { _ in }
        }
        store.assertFired(name, old: "Kim", new: "Lee")
        store.finish()
    }
}
