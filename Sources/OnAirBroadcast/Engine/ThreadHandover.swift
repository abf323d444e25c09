/// Hands a non-Sendable object to the thread that will own it from now on. The sender must not
/// touch it until the thread is done (it awaits the thread's result).
struct ThreadHandover<Value>: @unchecked Sendable {
    let value: Value
}
