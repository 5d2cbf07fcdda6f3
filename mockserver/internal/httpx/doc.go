// Package httpx holds the HTTP plumbing shared by the mock backends
// (hosted API, correction container, background-removal container), so
// that each backend's handlers stay thin and none copies another's:
//
//   - the one JSON error body (Error, Errorf, ParamError, WriteError) and
//     JSON writing (WriteJSON, Marshal);
//   - method checks (Allow) and strict query parsing (Query, OnlyParams,
//     Single): unknown and repeated parameters are a 400 naming them;
//   - bounded body receiving into the blob store (ReceiveLimited) and the
//     abort of a body still arriving when the backend closes
//     (AbortBodyOnClose);
//   - ids (NewID, NewUUID, IsUUID), the request-id and request-log
//     middleware (RequestID) and its StatusRecorder;
//   - WriteFinalStatus, which answers a raw final status such as
//     "HTTP/1.1 102 Processing" on a hijacked connection, as the
//     background-removal container does (net/http itself sends a 1xx only
//     as an informational answer followed by a final one).
package httpx
