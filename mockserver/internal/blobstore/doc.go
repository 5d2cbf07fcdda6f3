// Package blobstore is the file storage behind the mock servers'
// pre-signed URLs: an HMAC URL signer (method, path and expiry), and a
// directory store that streams request bodies to temporary files, with a
// size limit and a SHA-256 computed on the way, and renames them into
// place only when complete. Nothing is ever held in memory, so multi-GB
// uploads work.
package blobstore
