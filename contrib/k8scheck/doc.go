// Package k8scheck holds no code: its tests decode every manifest of
// docs/kubernetes strictly into the Kubernetes API types (an unknown or
// misspelt field fails) and check that the Indexed Job and the replica
// fleet agree (shard count, replica names, port). It is a module of its
// own so that the SDK's go.mod gains no Kubernetes dependency.
package k8scheck
