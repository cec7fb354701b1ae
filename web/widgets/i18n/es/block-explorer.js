// es messages for block-explorer (see ../README.md).
export default {
};
