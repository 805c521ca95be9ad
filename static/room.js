// room.js: presenter rooms and audience follow (see web/rooms.go).
