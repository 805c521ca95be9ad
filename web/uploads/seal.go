package uploads

import (
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
)

// A session's files travel to a Remote sealed: gob-encoded, gzipped, and
// encrypted with AES-256-GCM under a key derived from the session's id,
// the stored name as additional data. Only a holder of the id can open
// them; a blob moved to another name does not open.

// sealVersion is the first byte of a sealed blob.
const sealVersion = 1

// maxOpened bounds what opening a blob may decompress to.
const maxOpened = 1 << 30

// errSealed is the error of a blob that does not open.
var errSealed = errors.New("uploads: a stored session does not open (damaged, or not this session's)")

// seal turns files into the blob a Remote stores for id.
func seal(id string, files map[string][]byte) ([]byte, error) {
	var plain bytes.Buffer
	zw, err := gzip.NewWriterLevel(&plain, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if err := gob.NewEncoder(zw).Encode(files); err != nil {
		return nil, fmt.Errorf("uploads: encode a session: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	aead, err := aeadOf(id)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+plain.Len()+aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("uploads: nonce: %w", err)
	}
	return aead.Seal(out, out[1:], plain.Bytes(), []byte(nameOf(id))), nil
}

// unseal opens a blob seal made for id.
func unseal(id string, blob []byte) (map[string][]byte, error) {
	aead, err := aeadOf(id)
	if err != nil {
		return nil, err
	}
	n := aead.NonceSize()
	if len(blob) < 1+n || blob[0] != sealVersion {
		return nil, errSealed
	}
	plain, err := aead.Open(nil, blob[1:1+n], blob[1+n:], []byte(nameOf(id)))
	if err != nil {
		return nil, errSealed
	}
	zr, err := gzip.NewReader(bytes.NewReader(plain))
	if err != nil {
		return nil, errSealed
	}
	var files map[string][]byte
	if err := gob.NewDecoder(io.LimitReader(zr, maxOpened)).Decode(&files); err != nil {
		return nil, errSealed
	}
	return files, nil
}

func aeadOf(id string) (cipher.AEAD, error) {
	block, err := aes.NewCipher(derive(id, "key"))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
