package qr

import (
	"image"
	"image/color"
	"slices"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
)

// TestReedSolomon: the error correction of the data codewords of
// "HELLO WORLD" in a version 1-M code (the worked example most QR
// tutorials follow: 16 data codewords, 10 of error correction).
func TestReedSolomon(t *testing.T) {
	data := []byte{32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17}
	want := []byte{196, 35, 39, 119, 235, 215, 231, 226, 93, 23}
	if got := ReedSolomon(data, 10); !slices.Equal(got, want) {
		t.Errorf("ReedSolomon = %v; want %v", got, want)
	}
}

// TestFormatBits: the format strings of level M from the standard's
// table (masks 0, 2, 3, 5 and 7).
func TestFormatBits(t *testing.T) {
	for mask, want := range map[int]int{0: 0b101010000010010, 2: 0b101111001111100, 3: 0b101101101001011, 5: 0b100000011001110, 7: 0b100101010100000} {
		if got := FormatBits(mask); got != want {
			t.Errorf("FormatBits(%d) = %015b; want %015b", mask, got, want)
		}
	}
}

// TestDecode: ZXing's decoder (the one phone scanner apps are built on)
// reads back what Encode wrote, from short codes to version 10, drawn as
// a camera would see them: 4 pixels a module, a quiet zone of 4.
func TestDecode(t *testing.T) {
	for _, text := range []string{
		"http://192.168.1.23:8080/join/UY2YF2",
		"http://localhost:8080/join/ABC123",
		"https://ctxsim.example.org/join/Q7PZ2K",
		"http://[fe80::1ff:fe23:4567:890a]:8080/join/K2M9XW",
		strings.Repeat("ctxsim join ", 17), // 204 bytes: version 10
		"ä",
	} {
		c, err := Encode(text)
		if err != nil {
			t.Fatalf("Encode(%q): %v", text, err)
		}
		got, err := decode(c)
		if err != nil {
			t.Errorf("Encode(%q) (version %d, mask %d) does not decode: %v", text, c.Version, c.Mask, err)
			continue
		}
		if got != text {
			t.Errorf("Encode(%q) decodes as %q", text, got)
		}
	}
	if _, err := Encode(strings.Repeat("x", 214)); err != ErrTooLong {
		t.Errorf("214 bytes: err = %v; want ErrTooLong", err)
	}
}

func decode(c *Code) (string, error) {
	const scale, quiet = 4, 4
	side := (c.Size + 2*quiet) * scale
	img := image.NewGray(image.Rect(0, 0, side, side))
	for y := range side {
		for x := range side {
			mx, my := x/scale-quiet, y/scale-quiet
			v := color.Gray{Y: 255}
			if mx >= 0 && my >= 0 && mx < c.Size && my < c.Size && c.Dark(mx, my) {
				v = color.Gray{Y: 0}
			}
			img.SetGray(x, y, v)
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return "", err
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true})
	if err != nil {
		return "", err
	}
	return res.GetText(), nil
}

// TestEveryMask: the code decodes under each of the eight masks, not only
// the one the penalty picks.
func TestEveryMask(t *testing.T) {
	text := "http://192.168.1.23:8080/join/UY2YF2"
	c, err := Encode(text)
	if err != nil {
		t.Fatal(err)
	}
	c.applyMask(c.Mask) // back to no mask
	for m := range 8 {
		c.applyMask(m)
		c.drawFormat(m)
		if got, err := decode(c); err != nil || got != text {
			t.Errorf("mask %d: %q, %v", m, got, err)
		}
		c.applyMask(m)
	}
}
