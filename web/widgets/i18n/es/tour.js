// es messages for tour (see ../README.md).
export default {
};
