// Package jsonrpc is protocol sqlgym/1 over JSON-RPC 2.0: the Dispatcher
// that reads a frame (a request or a batch, its params decoded strictly,
// the hot shapes through base/jsonscan), binds each request to its
// method's handler, runs the calls under the batch's reply budget and
// encodes the reply frame in a pooled buffer (ReleaseFrame hands it
// back). It turns the Manager's errors into JSON-RPC error codes and
// uses only the exported API of package episodes. It knows nothing of
// sockets: a transport (package transport) gives it frames, in arrival
// order, through Dispatcher.Prepare and Job.Run.
package jsonrpc
