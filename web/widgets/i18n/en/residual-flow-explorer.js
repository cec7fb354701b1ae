// en messages for residual-flow-explorer (see ../README.md).
export default {
};
