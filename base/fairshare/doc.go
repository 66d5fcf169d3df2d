// Package fairshare shares a bounded pool (sessions, episodes, live
// streams) among the clients that use it, by max-min fairness that only
// bites under contention: a client may hold the whole pool while no one
// else asks; when the pool is full and a client holding less than its
// fair share (the pool's size over the clients holding or asking) asks,
// the least recently used idle item of the client that holds the most is
// reclaimed (ended as its idle timeout would end it) to make room. A
// client at or above its share asking when the pool is full is refused,
// with a Refusal that says so.
//
// The package knows nothing of what an item is: each surface (the
// Manager's episodes, OpenEnv and MCP sessions, the console's live
// streams) gives it an Item that can say when it was last used and end
// itself when idle, and names its clients (ClientOfAddr, WithClient).
// stdlib only: a leaf every surface may import.
package fairshare
