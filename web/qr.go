package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"ctxsim/web/httperr"
	"ctxsim/web/qr"
)

// maxQRText bounds the text a QR code is made of: a join address.
const maxQRText = 200

// qrCode draws ?text= (an http or https address, at most maxQRText bytes)
// as a QR code in SVG: the presenter's room shows its join address so a
// phone's camera opens it. The image holds nothing but the code.
func (s *Server) qrCode(c echo.Context) error {
	text := c.QueryParam("text")
	if len(text) > maxQRText || !(strings.HasPrefix(text, "http://") || strings.HasPrefix(text, "https://")) {
		return &httperr.Error{Code: httperr.Invalid, Param: "text", Allowed: "an http or https address of at most 200 bytes", Msg: "bad QR code text"}
	}
	code, err := qr.Encode(text)
	if err != nil {
		return &httperr.Error{Code: httperr.Invalid, Param: "text", Allowed: "an http or https address of at most 200 bytes", Msg: err.Error()}
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "public, max-age=86400")
	return c.Blob(http.StatusOK, "image/svg+xml", []byte(code.SVG()))
}
