package store

import "github.com/google/uuid"

// NewID returns a new record id: a version 7 UUID, so ids sort by creation.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }
