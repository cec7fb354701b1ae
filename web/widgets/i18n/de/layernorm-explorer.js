// de messages for layernorm-explorer (see ../README.md).
export default {
};
